-- Without transaction metadata, with skip.messages.without.change and tombstones.on.delete=false: FULL-identity
-- UPDATEs and DELETEs and DEFAULT-identity DELETEs several to a transaction (the stream writes a table's second
-- and later changes of a transaction straight into their record lines): UPDATEs setting the same values (skipped)
-- between changed ones, an UPDATE of an excluded column only, a keyless FULL table.
-- @set provide.transaction.metadata=false
-- @set skip.messages.without.change=true
-- @set tombstones.on.delete=false
-- @set column.exclude.list=public.sf.ex
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.sf (id integer PRIMARY KEY, a text, d double precision, n integer DEFAULT 7, ex text);
ALTER TABLE public.sf REPLICA IDENTITY FULL;
INSERT INTO public.sf SELECT g, 'a' || g, g * 0.5, CASE WHEN g % 2 = 0 THEN NULL ELSE g END, 'x' FROM generate_series(1, 8) g;
CREATE TABLE public.sk (a integer, b text);
ALTER TABLE public.sk REPLICA IDENTITY FULL;
INSERT INTO public.sk VALUES (1, 'one'), (2, NULL), (3, 'three');
CREATE TABLE public.sd (id integer PRIMARY KEY, v text, w integer DEFAULT 4);
INSERT INTO public.sd SELECT g, 'v' || g, g FROM generate_series(1, 8) g;
-- @section stream
BEGIN;
UPDATE public.sf SET n = 100 WHERE id = 1;
UPDATE public.sf SET a = a WHERE id = 2;
UPDATE public.sf SET n = 200 WHERE id = 3;
UPDATE public.sf SET ex = 'y' WHERE id = 3;
UPDATE public.sf SET n = NULL WHERE id = 1;
UPDATE public.sf SET n = NULL WHERE id = 4;
DELETE FROM public.sf WHERE id IN (5, 6);
COMMIT;
BEGIN;
UPDATE public.sk SET b = b;
UPDATE public.sk SET b = 'x' WHERE a = 1;
DELETE FROM public.sk WHERE a >= 2;
COMMIT;
DELETE FROM public.sd WHERE id = 1;
BEGIN;
UPDATE public.sd SET v = v WHERE id = 2;
DELETE FROM public.sd WHERE id IN (2, 3);
UPDATE public.sd SET w = NULL WHERE id = 4;
DELETE FROM public.sd WHERE id = 4;
COMMIT;
