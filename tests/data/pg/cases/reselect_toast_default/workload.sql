-- post.processors with Debezium's ReselectColumnsPostProcessor (defaults: unavailable and null values, by primary key).
-- Values just over the TOAST threshold (STORAGE EXTERNAL: kept out of line uncompressed). Each row is changed in
-- one stream transaction only, so the row read back is the transaction's final state
-- whenever Debezium processes the event (pgoutput sends a transaction after its commit).
-- @set post.processors=reselector
-- @set reselector.type=io.debezium.processors.reselect.ReselectColumnsPostProcessor
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t_def (id integer PRIMARY KEY, big text, bin bytea, doc jsonb, arr text[], nums int[], hs text, n integer, note text);
ALTER TABLE public.t_def ALTER big SET STORAGE EXTERNAL, ALTER bin SET STORAGE EXTERNAL, ALTER doc SET STORAGE EXTERNAL,
  ALTER arr SET STORAGE EXTERNAL, ALTER nums SET STORAGE EXTERNAL;
INSERT INTO public.t_def SELECT g, (SELECT string_agg(md5(i::text || g), '') FROM generate_series(1, 70) i),
  (SELECT decode(string_agg(md5(i::text || g), ''), 'hex') FROM generate_series(1, 140) i),
  (SELECT jsonb_agg(md5(i::text || g)) FROM generate_series(1, 70) i),
  (SELECT array_agg(md5(i::text || g)) FROM generate_series(1, 70) i),
  (SELECT array_agg(i * g) FROM generate_series(1, 600) i), 'h' || g, g, NULL FROM generate_series(1, 8) g;
CREATE TABLE public.t_full (id integer PRIMARY KEY, big text, n integer, note text);
ALTER TABLE public.t_full ALTER big SET STORAGE EXTERNAL;
ALTER TABLE public.t_full REPLICA IDENTITY FULL;
INSERT INTO public.t_full SELECT g, (SELECT string_agg(md5(i::text || g), '') FROM generate_series(1, 70) i), g, NULL FROM generate_series(1, 3) g;
CREATE TABLE public.t_nokey (a integer, big text, note text);
CREATE TABLE public."t_Case" ("Id" integer PRIMARY KEY, big text, n integer);
ALTER TABLE public."t_Case" ALTER big SET STORAGE EXTERNAL;
INSERT INTO public."t_Case" VALUES (1, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 70) i), 1);
CREATE TABLE public.t_uuid (id uuid PRIMARY KEY, big text, n integer);
ALTER TABLE public.t_uuid ALTER big SET STORAGE EXTERNAL;
INSERT INTO public.t_uuid VALUES ('6f1b2c3d-0000-4000-8000-000000000001', (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 70) i), 1);
CREATE TABLE public.t_ts (id timestamp PRIMARY KEY, big text, n integer);
ALTER TABLE public.t_ts ALTER big SET STORAGE EXTERNAL;
INSERT INTO public.t_ts VALUES ('2024-01-02 03:04:05', (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 70) i), 1);
-- @section stream
UPDATE public.t_def SET n = 10 WHERE id = 1;
UPDATE public.t_def SET n = 20, note = 'set' WHERE id = 2;
BEGIN;
UPDATE public.t_def SET n = 30 WHERE id = 3;
DELETE FROM public.t_def WHERE id = 3;
COMMIT;
BEGIN;
UPDATE public.t_def SET n = 40 WHERE id = 4;
UPDATE public.t_def SET big = 'changed later', note = 'later' WHERE id = 4;
COMMIT;
UPDATE public.t_def SET id = 50 WHERE id = 5;
UPDATE public.t_def SET big = 'short', bin = '\x0102' WHERE id = 6;
BEGIN;
INSERT INTO public.t_def (id, n) VALUES (100, 1);
UPDATE public.t_def SET note = 'filled', big = 'b' WHERE id = 100;
COMMIT;
INSERT INTO public.t_def (id, n) VALUES (101, 1);
DELETE FROM public.t_def WHERE id = 7;
UPDATE public.t_full SET n = 11 WHERE id = 1;
BEGIN;
INSERT INTO public.t_full (id, n) VALUES (10, 1);
UPDATE public.t_full SET note = 'x' WHERE id = 10;
COMMIT;
BEGIN;
INSERT INTO public.t_nokey VALUES (1, NULL, NULL);
INSERT INTO public.t_nokey VALUES (2, 'b', NULL);
COMMIT;
UPDATE public."t_Case" SET n = 2 WHERE "Id" = 1;
UPDATE public.t_uuid SET n = 2;
UPDATE public.t_ts SET n = 2;
