-- reselect.error.handling.mode=fail: an UPDATE keeping an unchanged TOAST value whose row the same transaction
-- deletes is not found when Debezium reads it again, and the connector stops ("Failed to find row"); the UPDATE
-- before it (a quiet wait apart) is read again normally. Without transaction metadata: the
-- failing transaction's BEGIN would be in the batch Debezium loses when it stops (docs/differential.md).
-- @set post.processors=r
-- @set r.type=io.debezium.processors.reselect.ReselectColumnsPostProcessor
-- @set r.reselect.error.handling.mode=fail
-- @set provide.transaction.metadata=false
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t (id integer PRIMARY KEY, big text, n integer);
ALTER TABLE public.t ALTER COLUMN big SET STORAGE EXTERNAL;
INSERT INTO public.t SELECT g, (SELECT string_agg(md5(i::text || g), '') FROM generate_series(1, 100) i), g FROM generate_series(1, 2) g;
-- @section stream
UPDATE public.t SET n = 10 WHERE id = 1;
-- @quiet
BEGIN;
UPDATE public.t SET n = 20 WHERE id = 2;
DELETE FROM public.t WHERE id = 2;
COMMIT;
