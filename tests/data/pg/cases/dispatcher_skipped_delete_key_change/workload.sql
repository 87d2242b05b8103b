-- regression: skipped.operations=d on PostgreSQL: plain deletes skipped (the publication does not
-- publish them); an UPDATE that changes the key is dispatched record by record, so its delete half
-- (and tombstone) is skipped and its create (+__debezium.oldkey) kept; skip.messages.without.change
-- drops an UPDATE that changes no captured column
-- @set skipped.operations=d
-- @set skip.messages.without.change=true
-- @set column.exclude.list=public.t.ignored
-- @set provide.transaction.metadata=true
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t (id integer PRIMARY KEY, v text, ignored integer);
ALTER TABLE public.t REPLICA IDENTITY FULL;
INSERT INTO public.t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3);
-- @section stream
INSERT INTO public.t VALUES (4, 'd', 4);
UPDATE public.t SET id = 10 WHERE id = 1;
DELETE FROM public.t WHERE id = 2;
UPDATE public.t SET ignored = 30 WHERE id = 3;
UPDATE public.t SET v = 'c2' WHERE id = 3;
BEGIN;
UPDATE public.t SET ignored = 40 WHERE id = 4;
UPDATE public.t SET id = 11 WHERE id = 10;
COMMIT;
