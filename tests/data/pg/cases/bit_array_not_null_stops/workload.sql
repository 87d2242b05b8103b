-- (session 23, recorded; reasoned in session 22) a NOT NULL bit(4)[] column: the array fails Connect's put (its
-- schema is one bit(4)'s) and a required field cannot be left null: Debezium stops at the streamed row.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
INSERT INTO public.plain VALUES (1, 'one');
-- @section stream
CREATE TABLE public.bn (id integer PRIMARY KEY, b bit(4)[] NOT NULL, v text);
INSERT INTO public.plain VALUES (2, 'two');
INSERT INTO public.bn VALUES (1, ARRAY[B'1010']::bit(4)[], 'a');
INSERT INTO public.plain VALUES (3, 'three');
