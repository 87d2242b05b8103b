-- event.converting.failure.handling.mode=fail: an enum[] holding a NULL element fails Connect's validation when
-- TableSchemaBuilder puts the array into the row; under `warn` (the default) Debezium leaves the field null
-- (case enum_array_null_element), under `fail` it throws "Failed to properly convert data value for
-- 'public.ea.ea' of type _mood" and the task stops.
-- @set event.converting.failure.handling.mode=fail
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE public.ea (id integer PRIMARY KEY, ea mood[], ta text[]);
INSERT INTO public.ea VALUES (1, '{sad,happy}', '{x,NULL}');
-- @section stream
INSERT INTO public.ea VALUES (2, '{ok}', '{NULL}');
UPDATE public.ea SET ta = '{y}' WHERE id = 1;
-- @quiet
INSERT INTO public.ea VALUES (3, '{ok,NULL}', '{z}');
INSERT INTO public.ea VALUES (4, '{ok}', '{z}');
