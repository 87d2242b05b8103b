-- Case signal_table_snapshot: the signal table (public.debezium_signal) sorts first among the captured
-- tables and already holds rows when the connector starts. Debezium 3.6.3 locks it with the others but
-- does not export it in the initial snapshot, so the first row of public.items is "first".
-- Recorded with record.py's built-in configuration.

-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
INSERT INTO public.debezium_signal VALUES ('old-1', 'log', '{"message": "pre-existing signal row"}');
CREATE TABLE public.items (id integer PRIMARY KEY, v text);
INSERT INTO public.items VALUES (1, 'i1'), (2, 'i2'), (3, 'i3');

-- @section stream
INSERT INTO public.items VALUES (4, 'i4');
-- a 'log' signal: Debezium logs it; the row is an ordinary change event of the signal table
INSERT INTO public.debezium_signal VALUES ('log-1', 'log', '{"message": "hello from the stream"}');
DELETE FROM public.debezium_signal WHERE id = 'old-1';

-- @section incremental_locker
SELECT 1;

-- @section incremental
INSERT INTO public.debezium_signal (id, type, data) VALUES
  ('incr-1', 'execute-snapshot', '{"data-collections": ["public.items"], "type": "incremental"}');
