-- (session 24) a table named a''b (two apostrophes) and one in a schema s''q: Debezium's decoder names each change's
-- table with TableId.toDoubleQuotedString ("public"."a''b") and TableId.parse reads it back as public.a'b (the parser
-- collapses every doubled quote character): no such table, PostgresChangeRecordEmitter.newTable refreshes it from
-- the database, finds none, warns "cannot load schema for table" and the change is dropped.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
CREATE TABLE public."a''b" (id integer PRIMARY KEY, v text);
CREATE SCHEMA "s''q";
CREATE TABLE "s''q".t (id integer PRIMARY KEY, v text);
INSERT INTO public."a''b" VALUES (1, 'pre');
INSERT INTO "s''q".t VALUES (1, 'pre');
-- @section stream
INSERT INTO public."a''b" VALUES (2, 'streamed');
UPDATE public."a''b" SET v = 'upd' WHERE id = 1;
INSERT INTO public.plain VALUES (1, 'one');
BEGIN;
INSERT INTO public.plain VALUES (2, 'two');
INSERT INTO "s''q".t VALUES (2, 'two');
DELETE FROM public."a''b" WHERE id = 2;
INSERT INTO public.plain VALUES (3, 'three');
COMMIT;
INSERT INTO "s''q".t VALUES (3, 'alone');
TRUNCATE public."a''b";
INSERT INTO public.plain VALUES (4, 'four');
-- @quiet
ALTER TABLE public."a''b" ADD COLUMN w integer;
INSERT INTO public."a''b" VALUES (5, 'after', 7);
INSERT INTO public.plain VALUES (5, 'five');
