-- key_null_default_key_converter_false without transaction metadata (the pgoutput stream's JSON-text path),
-- with UPDATEs under REPLICA IDENTITY FULL that keep a NULL key, set the default, set NULL again: the key
-- converter's replace.null.with.default=false keeps the key's NULL (no key field prints a default), the value
-- and the __debezium.oldkey / newkey headers show the default; TOASTed values beside them.
-- @set provide.transaction.metadata=false
-- @set message.key.columns=public.mk:g
-- @set key.converter.replace.null.with.default=false
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.ud (a integer DEFAULT 7, b text, c numeric DEFAULT 1.5, big text);
CREATE UNIQUE INDEX ud_a ON public.ud (a);
ALTER TABLE public.ud REPLICA IDENTITY FULL;
INSERT INTO public.ud VALUES (1, 'x', NULL, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 80) i)), (NULL, 'y', 2, 'small');
CREATE TABLE public.mk (id integer PRIMARY KEY, g text DEFAULT 'dflt', v integer, big text);
ALTER TABLE public.mk REPLICA IDENTITY FULL;
INSERT INTO public.mk VALUES (1, NULL, 1, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 80) i)), (2, 'two', 2, NULL);
-- @section stream
INSERT INTO public.ud VALUES (NULL, 'n');
UPDATE public.ud SET b = 'y2' WHERE b = 'y';
UPDATE public.ud SET c = 3 WHERE b = 'x';
UPDATE public.ud SET a = NULL WHERE b = 'x';
UPDATE public.ud SET b = 'x2' WHERE b = 'x';
UPDATE public.ud SET a = 7 WHERE b = 'y2';
UPDATE public.ud SET c = NULL WHERE b = 'y2';
UPDATE public.ud SET a = NULL WHERE b = 'y2';
DELETE FROM public.ud WHERE b = 'x2';
UPDATE public.mk SET v = 10 WHERE id = 1;
UPDATE public.mk SET g = 'dflt' WHERE id = 1;
UPDATE public.mk SET v = 11 WHERE id = 1;
UPDATE public.mk SET g = NULL WHERE id = 1;
UPDATE public.mk SET v = 12, big = 'b' WHERE id = 1;
UPDATE public.mk SET g = NULL WHERE id = 2;
UPDATE public.mk SET v = 20 WHERE id = 2;
DELETE FROM public.mk WHERE id = 2;
