-- Case notifications_nodata (snapshot.mode=no_data: the initial snapshot is SKIPPED): notification.enabled.channels=sink (topic dbserver1.notifications). The initial
-- snapshot of two tables (one empty) and an incremental snapshot of both, chunk size 5, emit Debezium's
-- "Initial Snapshot" and "Incremental Snapshot" notifications beside the data.

-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.items (id integer PRIMARY KEY, v text);
INSERT INTO public.items SELECT g, 'i' || g FROM generate_series(1, 12) g;
CREATE TABLE public.empty_t (id integer PRIMARY KEY, v text);

-- @section stream
INSERT INTO public.items VALUES (13, 'i13');

-- @section incremental_locker
SELECT 1;

-- @section incremental
INSERT INTO public.debezium_signal (id, type, data) VALUES
  ('incr-n', 'execute-snapshot', '{"data-collections": ["public.items", "public.empty_t"], "type": "incremental"}');
