-- Case relation_catalog_changed_in_tx (diffcamp8, session 14; campaign seed 44100006 raced on it): rows written
-- and their table dropped or altered in the same transaction. pgoutput sends the transaction after its commit,
-- so the Relation message of each row is processed when the DROP / ALTER is already in the catalog, in both
-- engines, whatever their speed. The Relation gives the columns (names, types, as they were at the change); key,
-- NOT NULL and defaults come from the catalog as it is now (Debezium's PgOutputMessageDecoder):
--   gone: table dropped -> null key, every field optional, no defaults; the DELETE has no `before` and its
--         tombstone a null key;
--   unkeyed: primary key dropped, `a` made nullable with a new default, `b` loses its default -> null key
--         (also for the row inserted before the ALTER), `a` optional with default 9 (the NULL of row 3 prints 9);
--   renamed: key and `a` renamed -> the first row's Relation names `id` and `a`, which the catalog no longer
--         has: null key, all optional; the next row's Relation has the new names;
--   later_key: a primary key added after the row -> the row is keyed.
-- Committed apart (seed 44100006: CREATE; INSERT; DROP, each on its own) the answer depends on whether the
-- engine read the catalog before the DROP committed; the generator now writes such steps as one transaction.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.seed (id integer PRIMARY KEY, v text);
INSERT INTO public.seed VALUES (1, 's');
-- @section stream
CREATE TABLE public.gone (k text PRIMARY KEY, n integer NOT NULL DEFAULT 5, t text DEFAULT 'd');
BEGIN;
INSERT INTO public.gone VALUES ('x', 1, 'a'), ('y', 2, NULL);
UPDATE public.gone SET n = 3 WHERE k = 'x';
DELETE FROM public.gone WHERE k = 'y';
DROP TABLE public.gone;
COMMIT;
CREATE TABLE public.unkeyed (id integer PRIMARY KEY, a integer NOT NULL DEFAULT 1, b text NOT NULL DEFAULT 'b');
BEGIN;
INSERT INTO public.unkeyed VALUES (1, 2, 'x');
ALTER TABLE public.unkeyed DROP CONSTRAINT unkeyed_pkey;
ALTER TABLE public.unkeyed ALTER COLUMN a DROP NOT NULL, ALTER COLUMN a SET DEFAULT 9, ALTER COLUMN b DROP DEFAULT;
INSERT INTO public.unkeyed VALUES (2, 3, 'y');
COMMIT;
INSERT INTO public.unkeyed VALUES (3, NULL, 'z');
CREATE TABLE public.renamed (id integer PRIMARY KEY, a integer NOT NULL DEFAULT 4, b text);
BEGIN;
INSERT INTO public.renamed VALUES (1, 2, 'x');
ALTER TABLE public.renamed RENAME COLUMN id TO id2;
ALTER TABLE public.renamed RENAME COLUMN a TO a2;
COMMIT;
INSERT INTO public.renamed VALUES (2, 5, 'y');
CREATE TABLE public.later_key (id integer NOT NULL, v text);
BEGIN;
INSERT INTO public.later_key VALUES (1, 'x');
ALTER TABLE public.later_key ADD PRIMARY KEY (id);
COMMIT;
UPDATE public.later_key SET v = 'y' WHERE id = 1;
UPDATE public.seed SET v = 't' WHERE id = 1;
