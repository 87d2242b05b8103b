-- message.key.columns as users write it: a table regex in another case, column regexes, a column name in
-- another case, a column the table lacks (Debezium falls back to the primary key), two entries for one table,
-- on keyless (REPLICA IDENTITY FULL) and keyed tables, snapshot and stream (incl. a key update and deletes)
-- @set message.key.columns=PUBLIC\.A_NK:k.*;public\.b_nk:(id|code);public\.c_pk:nope;public\.d_pk:CODE,id;public\.e_pk:code;public\.e_p.:v
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.a_nk (id integer NOT NULL, code varchar(8), Kx integer, v text);
ALTER TABLE public.a_nk REPLICA IDENTITY FULL;
INSERT INTO public.a_nk VALUES (1, 'a', 10, 'one'), (2, 'b', 20, 'two');
CREATE TABLE public.b_nk (id integer NOT NULL, code varchar(8), v text);
ALTER TABLE public.b_nk REPLICA IDENTITY FULL;
INSERT INTO public.b_nk VALUES (1, 'a', 'one'), (2, 'b', 'two');
CREATE TABLE public.c_pk (id integer PRIMARY KEY, code varchar(8) NOT NULL, v text);
INSERT INTO public.c_pk VALUES (1, 'a', 'one');
CREATE TABLE public.d_pk (id integer PRIMARY KEY, code varchar(8) NOT NULL, v text);
ALTER TABLE public.d_pk REPLICA IDENTITY FULL;
INSERT INTO public.d_pk VALUES (1, 'a', 'one');
CREATE TABLE public.e_pk (id integer PRIMARY KEY, code varchar(8) NOT NULL, v text);
ALTER TABLE public.e_pk REPLICA IDENTITY FULL;
INSERT INTO public.e_pk VALUES (1, 'a', 'one');
-- @section stream
INSERT INTO public.a_nk VALUES (3, 'c', 30, 'three');
UPDATE public.a_nk SET v = 'uno' WHERE id = 1;
UPDATE public.a_nk SET kx = 21 WHERE id = 2;
DELETE FROM public.a_nk WHERE id = 3;
INSERT INTO public.b_nk VALUES (3, 'c', 'three');
UPDATE public.b_nk SET code = 'bb' WHERE id = 2;
DELETE FROM public.b_nk WHERE id = 1;
INSERT INTO public.c_pk VALUES (2, 'b', 'two');
UPDATE public.c_pk SET id = 3 WHERE id = 2;
DELETE FROM public.c_pk WHERE id = 1;
INSERT INTO public.d_pk VALUES (2, 'b', 'two');
UPDATE public.d_pk SET code = 'bb' WHERE id = 2;
DELETE FROM public.d_pk WHERE id = 1;
INSERT INTO public.e_pk VALUES (2, 'b', 'two');
UPDATE public.e_pk SET v = 'zwei' WHERE id = 2;
DELETE FROM public.e_pk WHERE id = 1;
