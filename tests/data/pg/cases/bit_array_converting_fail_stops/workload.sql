-- (session 23, recorded; reasoned in session 22) bit(4)[] under event.converting.failure.handling.mode=fail: a NULL
-- array passes, a non-null one stops Debezium ("Failed to properly convert data value for 'public.bf.b' of type _bit").
-- @set event.converting.failure.handling.mode=fail
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
INSERT INTO public.plain VALUES (1, 'one');
-- @section stream
CREATE TABLE public.bf (id integer PRIMARY KEY, b bit(4)[], v text);
INSERT INTO public.plain VALUES (2, 'two');
INSERT INTO public.bf VALUES (1, NULL, 'null array');
INSERT INTO public.plain VALUES (3, 'three');
INSERT INTO public.bf VALUES (2, ARRAY[B'1010']::bit(4)[], 'a');
INSERT INTO public.plain VALUES (4, 'four');
