-- event.converting.failure.handling.mode=skip: as `warn` (TableSchemaBuilder's WARN case falls through to SKIP;
-- only the log level differs): an enum[]/tsvector[] holding a NULL element is a null field.
-- @set event.converting.failure.handling.mode=skip
-- @set include.unknown.datatypes=true
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE public.ea (id integer PRIMARY KEY, ea mood[], ea2 mood[] DEFAULT '{ok}', tv tsvector[], ta text[]);
INSERT INTO public.ea VALUES (1, '{sad,NULL}', '{NULL}', '{NULL,"a b"}', '{x,NULL}');
INSERT INTO public.ea VALUES (2, '{sad,happy}', '{}', '{"a"}', '{}');
-- @section stream
INSERT INTO public.ea VALUES (3, '{ok,NULL}', '{NULL,NULL}', '{"b",NULL}', '{NULL}');
UPDATE public.ea SET ea = '{NULL}' WHERE id = 2;
DELETE FROM public.ea WHERE id = 3;
