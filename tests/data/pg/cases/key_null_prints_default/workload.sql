-- A nullable unique-index key column with a default, and a message.key.columns column with one: a NULL
-- in the key prints the default (the key converter's replace.null.with.default), in the key, the
-- tombstone's key and the __debezium.oldkey / newkey headers; a key change from NULL to the default is one.
-- @set message.key.columns=public.mk:g
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.ud (a integer DEFAULT 7, b text, c numeric DEFAULT 1.5);
CREATE UNIQUE INDEX ud_a ON public.ud (a);
ALTER TABLE public.ud REPLICA IDENTITY FULL;
INSERT INTO public.ud VALUES (1, 'x'), (NULL, 'y');
CREATE TABLE public.mk (id integer PRIMARY KEY, g text DEFAULT 'dflt', v integer);
ALTER TABLE public.mk REPLICA IDENTITY FULL;
INSERT INTO public.mk VALUES (1, NULL, 1), (2, 'two', 2);
-- @section stream
INSERT INTO public.ud VALUES (NULL, 'n');
UPDATE public.ud SET a = NULL WHERE a = 1;
UPDATE public.ud SET a = 3 WHERE b = 'n';
UPDATE public.ud SET a = 7 WHERE b = 'x';
DELETE FROM public.ud WHERE b = 'y';
INSERT INTO public.mk VALUES (3, NULL, 3);
UPDATE public.mk SET g = NULL WHERE id = 2;
UPDATE public.mk SET v = 30 WHERE id = 3;
UPDATE public.mk SET g = 'dflt' WHERE id = 3;
DELETE FROM public.mk WHERE id = 1;
