-- (session 23, recorded; both agreed before) a blocking snapshot of a table in schema `s "q"`: its SELECT names it
-- bare, PostgreSQL answers a syntax error, Debezium logs "Error while executing requested blocking snapshot" and
-- streaming goes on; no record of the table.
-- @set snapshot.mode=no_data
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
CREATE SCHEMA "s ""q""";
CREATE TABLE "s ""q"""."T" (id integer PRIMARY KEY, v text);
INSERT INTO "s ""q"""."T" VALUES (1, 'pre');
-- @section stream
INSERT INTO public.plain VALUES (1, 'one');
-- @quiet
INSERT INTO public.debezium_signal VALUES ('i1', 'execute-snapshot', '{"data-collections": ["s \"q\".T"], "type": "blocking"}');
-- @quiet
INSERT INTO public.plain VALUES (2, 'two');
