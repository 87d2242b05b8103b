-- Arrays whose element schema is required (enum, tsvector; an unknown type's with include.unknown.datatypes):
-- a NULL element fails Connect's validation when the array is put into the row, and Debezium leaves the
-- field null (in the snapshot and the stream); other arrays keep their NULL elements.
-- @set include.unknown.datatypes=true
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE public.ea (id integer PRIMARY KEY, ea mood[], ea2 mood[] DEFAULT '{ok}', tv tsvector[], pa point[], ta text[]);
INSERT INTO public.ea VALUES (1, '{sad,NULL}', '{NULL}', '{NULL,"a b"}', '{NULL,"(1,2)"}', '{x,NULL}');
INSERT INTO public.ea VALUES (2, '{sad,happy}', '{}', '{"a"}', '{"(1,2)"}', '{}');
-- @section stream
INSERT INTO public.ea VALUES (3, '{ok,NULL}', '{NULL,NULL}', '{"b",NULL}', '{"(3,4)",NULL}', '{NULL}');
UPDATE public.ea SET ea = '{NULL}' WHERE id = 2;
UPDATE public.ea SET ea = '{happy}', ea2 = '{sad}' WHERE id = 1;
DELETE FROM public.ea WHERE id = 3;
