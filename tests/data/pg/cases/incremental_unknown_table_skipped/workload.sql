-- PostgreSQL beside mariadb seed 77011: an execute-snapshot naming a table outside table.include.list (and a
-- missing one, then a captured one). Debezium's PostgresConnector has no schema history, so its dispatcher
-- drops the CREATE it builds for the unknown table; the refresh of a filtered table fails and the table is
-- skipped: only the captured table is read.
-- @set table.include.list=public\.debezium_signal,public\.kept1
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.kept1 (id integer PRIMARY KEY, v text);
INSERT INTO public.kept1 VALUES (1, 'a'), (2, 'b');
CREATE TABLE public.other1 (id integer PRIMARY KEY, v varchar(20) DEFAULT 'd', n integer);
INSERT INTO public.other1 VALUES (1, 'one', 1), (2, 'two', 2);
-- @section stream
INSERT INTO public.kept1 VALUES (3, 'c');
-- @section incremental_locker
SELECT 1;
-- @section incremental
INSERT INTO public.debezium_signal (id, type, data) VALUES
  ('incr-1', 'execute-snapshot', '{"data-collections": ["public.other1", "public.nosuch", "public.kept1"], "type": "incremental"}');
