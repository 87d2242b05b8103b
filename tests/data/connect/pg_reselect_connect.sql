-- The pg case reselect_options' tables for the connect goldens (post.processors before transforms): each row changed
-- in one transaction only, so the row read again is that transaction's final state.
-- @section pre
CREATE EXTENSION IF NOT EXISTS hstore;
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t_inc (id integer PRIMARY KEY, big text, other text, hs hstore, n integer, note text);
INSERT INTO public.t_inc SELECT g, (SELECT string_agg(md5(i::text || g), '') FROM generate_series(1, 500) i),
  (SELECT string_agg(md5(i::text || g || 'o'), '') FROM generate_series(1, 500) i),
  (SELECT hstore(array_agg('k' || i), array_agg(md5(i::text || g))) FROM generate_series(1, 300) i), g, NULL
  FROM generate_series(1, 4) g;
CREATE TABLE public.t_key (id integer PRIMARY KEY, code text NOT NULL UNIQUE, big text, bin bytea, skip text, n integer);
INSERT INTO public.t_key SELECT g, 'code-' || g, (SELECT string_agg(md5(i::text || g), '') FROM generate_series(1, 500) i),
  (SELECT decode(string_agg(md5(i::text || g), ''), 'hex') FROM generate_series(1, 600) i), NULL, g
  FROM generate_series(1, 4) g;
-- @section stream
UPDATE public.t_inc SET n = 10 WHERE id = 1;
BEGIN;
INSERT INTO public.t_inc (id, n) VALUES (100, 1);
UPDATE public.t_inc SET note = 'later', big = 'b' WHERE id = 100;
COMMIT;
BEGIN;
UPDATE public.t_inc SET n = 20 WHERE id = 2;
UPDATE public.t_inc SET big = 'changed later' WHERE id = 2;
COMMIT;
UPDATE public.t_key SET n = 10 WHERE id = 1;
BEGIN;
INSERT INTO public.t_key (id, code) VALUES (100, 'code-100');
UPDATE public.t_key SET skip = 's', n = 5, bin = '\x0102' WHERE id = 100;
COMMIT;
BEGIN;
UPDATE public.t_key SET n = 30 WHERE id = 3;
UPDATE public.t_key SET bin = '\x03' WHERE id = 3;
COMMIT;
