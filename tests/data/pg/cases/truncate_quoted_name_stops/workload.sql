-- (session 23) the same name parsing: a table `x"` in public streams (`"public".x"` parses back as x"), a TRUNCATE of
-- a table in schema `s "q"` stops Debezium (decodeTruncate names it the same way); the transaction's earlier INSERT
-- and its BEGIN are in Debezium's lost last poll batch (accepted by the harness). The emulator ignored the TRUNCATE.
-- @set snapshot.mode=no_data
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
CREATE TABLE public."x""" (id integer PRIMARY KEY, v text);
CREATE SCHEMA "s ""q""";
CREATE TABLE "s ""q"""."T" (id integer PRIMARY KEY, v text);
INSERT INTO "s ""q"""."T" VALUES (1, 'pre');
-- @section stream
INSERT INTO public."x""" VALUES (1, 'streamed');
UPDATE public."x""" SET v = 'upd' WHERE id = 1;
INSERT INTO public.plain VALUES (1, 'one');
-- @quiet
BEGIN;
INSERT INTO public.plain VALUES (2, 'two');
TRUNCATE "s ""q"""."T";
COMMIT;
-- @quiet
INSERT INTO public.plain VALUES (3, 'three');
