-- Without transaction metadata (the pgoutput stream's JSON-text path): unchanged-TOAST values in UPDATEs of
-- REPLICA IDENTITY FULL tables (text, bytea, jsonb, text[] taken from the old row; a masked and an excluded
-- TOASTed column; a NULL set into a column with a default; a key change; deletes) and of a DEFAULT-identity
-- table (the placeholder); FULL tables whose key field prints a column default for NULL (a nullable unique
-- index, a message.key.columns column): UPDATEs keeping a NULL key, NULL -> the default (a key change),
-- the default -> NULL, with TOASTed values beside them.
-- @set provide.transaction.metadata=false
-- @set column.exclude.list=public.tf.ex
-- @set column.mask.with.6.chars=public.tf.sec
-- @set message.key.columns=public.mk:g
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.tf (id integer PRIMARY KEY, big text, bin bytea, doc jsonb, arr text[], n integer DEFAULT 5, sec text, ex text, d numeric(8,2) DEFAULT 1.25);
ALTER TABLE public.tf REPLICA IDENTITY FULL;
INSERT INTO public.tf VALUES (1, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 80) i),
  (SELECT decode(string_agg(md5(i::text), ''), 'hex') FROM generate_series(1, 160) i),
  (SELECT jsonb_agg(md5(i::text)) FROM generate_series(1, 80) i),
  (SELECT array_agg(md5(i::text)) FROM generate_series(1, 80) i), 1,
  (SELECT string_agg(md5((i + 7)::text), '') FROM generate_series(1, 80) i),
  (SELECT string_agg(md5((i + 9)::text), '') FROM generate_series(1, 80) i), 2.50);
INSERT INTO public.tf VALUES (2, 'small', '\x0102', '{"a": 1}', '{x,y}', NULL, 's', 'e', NULL);
CREATE TABLE public.td (id integer PRIMARY KEY, big text, bin bytea, doc jsonb, arr text[], n integer DEFAULT 5);
INSERT INTO public.td VALUES (1, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 80) i),
  (SELECT decode(string_agg(md5(i::text), ''), 'hex') FROM generate_series(1, 160) i),
  (SELECT jsonb_agg(md5(i::text)) FROM generate_series(1, 80) i),
  (SELECT array_agg(md5(i::text)) FROM generate_series(1, 80) i), 1);
CREATE TABLE public.ud (a integer DEFAULT 7, b text, c numeric DEFAULT 1.5, big text);
CREATE UNIQUE INDEX ud_a ON public.ud (a);
ALTER TABLE public.ud REPLICA IDENTITY FULL;
INSERT INTO public.ud VALUES (1, 'x', NULL, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 80) i)), (NULL, 'y', 2, 'small');
CREATE TABLE public.mk (id integer PRIMARY KEY, g text DEFAULT 'dflt', v integer, big text);
ALTER TABLE public.mk REPLICA IDENTITY FULL;
INSERT INTO public.mk VALUES (1, NULL, 1, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 80) i)), (2, 'two', 2, NULL);
-- @section stream
UPDATE public.tf SET n = 2 WHERE id = 1;
UPDATE public.tf SET n = NULL, d = NULL WHERE id = 1;
UPDATE public.tf SET big = 'now short', n = 3 WHERE id = 1;
UPDATE public.tf SET doc = '{"b": 2}' WHERE id = 1;
UPDATE public.tf SET n = 4 WHERE id = 2;
UPDATE public.tf SET id = 10 WHERE id = 1;
UPDATE public.tf SET n = 11 WHERE id = 10;
DELETE FROM public.tf WHERE id = 10;
DELETE FROM public.tf WHERE id = 2;
UPDATE public.td SET n = 2 WHERE id = 1;
UPDATE public.td SET n = NULL, big = 'short' WHERE id = 1;
UPDATE public.td SET arr = '{a}' WHERE id = 1;
DELETE FROM public.td WHERE id = 1;
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
