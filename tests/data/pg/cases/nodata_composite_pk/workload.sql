-- Case nodata_composite_pk: snapshot.mode=no_data (streaming only), composite primary keys and
-- primary-key changes (DEFAULT and FULL identity), a multi-table TRUNCATE (emitted: skipped.operations=none),
-- an incremental snapshot over a composite key (chunk size 5).
-- Recorded with record_nodata.py (record.py waiting for the slot instead of a snapshot) --set snapshot.mode=no_data

-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);

-- composite key, DEFAULT identity (the old key is in the WAL when a key column changes)
CREATE TABLE public.cpk (region varchar(8), n integer, v text, qty smallint NOT NULL DEFAULT 0, PRIMARY KEY (region, n));
INSERT INTO public.cpk (region, n, v, qty)
  SELECT r, i, r || '-' || i, i FROM unnest(ARRAY['eu', 'us']) r, generate_series(1, 6) i;
-- composite key, FULL identity
CREATE TABLE public.cpk_full (k1 integer, k2 date, v text, PRIMARY KEY (k2, k1));
ALTER TABLE public.cpk_full REPLICA IDENTITY FULL;
INSERT INTO public.cpk_full VALUES (1, '2024-01-01', 'a'), (2, '2024-01-02', 'b');

CREATE TABLE public.tr_x (id integer PRIMARY KEY, v text);
CREATE TABLE public.tr_y (id integer PRIMARY KEY, v text);
INSERT INTO public.tr_x VALUES (1, 'x1');
INSERT INTO public.tr_y VALUES (1, 'y1');

-- @section stream
INSERT INTO public.cpk VALUES ('ap', 1, 'ap-1', 7);
UPDATE public.cpk SET v = 'changed' WHERE region = 'eu' AND n = 2;
-- key change of one column, then of both
UPDATE public.cpk SET n = 60 WHERE region = 'eu' AND n = 6;
UPDATE public.cpk SET region = 'sa', n = 61 WHERE region = 'us' AND n = 6;
DELETE FROM public.cpk WHERE region = 'us' AND n = 5;
-- FULL identity key change and delete
UPDATE public.cpk_full SET k2 = '2025-01-01' WHERE k1 = 1;
DELETE FROM public.cpk_full WHERE k1 = 2;
-- key change inside a transaction with other changes
BEGIN;
UPDATE public.cpk SET n = n + 100 WHERE region = 'us' AND n IN (1, 2);
INSERT INTO public.cpk_full VALUES (3, '2024-03-03', 'c');
COMMIT;
-- multi-table TRUNCATE, and a TRUNCATE inside a transaction
TRUNCATE public.tr_x, public.tr_y;
BEGIN;
INSERT INTO public.tr_x VALUES (2, 'x2');
TRUNCATE public.tr_x;
INSERT INTO public.tr_y VALUES (2, 'y2');
COMMIT;

-- @section incremental_locker
SELECT 1;

-- @section incremental
-- rows that were never snapshotted (no_data): read now, chunked over (region, n)
INSERT INTO public.debezium_signal (id, type, data) VALUES
  ('incr-1', 'execute-snapshot', '{"data-collections": ["public.cpk", "public.cpk_full"], "type": "incremental"}');
