-- Case snapshot_include_case: snapshot.include.collection.list=PUBLIC.ALPHA (upper case). Debezium compiles
-- the list case-insensitively (CommonConnectorConfig.getDataCollectionsToBeSnapshotted), so public.alpha is
-- snapshotted and public.beta is not; both are streamed; public.beta is then read by an incremental snapshot. The emulator matched this list case-sensitively
-- for PostgreSQL and snapshotted nothing (MySQL/MariaDB and MongoDB already ignored case).
-- Recorded with record.py --set snapshot.include.collection.list=PUBLIC.ALPHA

-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.alpha (id integer PRIMARY KEY, v text);
INSERT INTO public.alpha VALUES (1, 'a1'), (2, 'a2');
CREATE TABLE public.beta (id integer PRIMARY KEY, v text);
INSERT INTO public.beta VALUES (1, 'b1'), (2, 'b2');

-- @section stream
INSERT INTO public.alpha VALUES (3, 'a3');
INSERT INTO public.beta VALUES (3, 'b3');
UPDATE public.beta SET v = 'b1x' WHERE id = 1;

-- @section incremental_locker
SELECT 1;

-- @section incremental
INSERT INTO public.debezium_signal (id, type, data) VALUES
  ('incr-1', 'execute-snapshot', '{"data-collections": ["public.beta"], "type": "incremental"}');
