-- event.converting.failure.handling.mode=fail: an enum[] holding a NULL element read by the snapshot; Debezium
-- converts each row as it reads it and throws "Failed to properly convert data value" (under `warn` the field is
-- null: case enum_array_null_element).
-- @set event.converting.failure.handling.mode=fail
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE public.e0 (id integer PRIMARY KEY, v text);
INSERT INTO public.e0 VALUES (1, 'a'), (2, 'b');
CREATE TABLE public.ea (id integer PRIMARY KEY, ea mood[]);
INSERT INTO public.ea VALUES (1, '{sad}'), (2, '{ok,NULL}'), (3, '{happy}');
-- @section stream
INSERT INTO public.e0 VALUES (3, 'c');
