-- Case key_column_excluded (lead, session 10; diffcamp4's campaign seed 42003003): column.include.list leaves out
-- a table's primary-key column, which the key keeps. A table described by the stream (a pgoutput Relation message)
-- takes NOT NULL and the default from a catalog read that applies the column filter (Debezium's
-- PgOutputMessageDecoder, readColumnForDecoder): the excluded key column is optional with no default in the key
-- schema, also for a table the snapshot read (its rows here come only from the stream). The emulator printed it
-- required with the catalog's default. The snapshot's own rows: case key_column_excluded_snapshot.
-- @set column.include.list=public\..*\.(id|v)
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.early (k integer PRIMARY KEY DEFAULT 7, v text);
CREATE TABLE public.seed (id integer PRIMARY KEY, v text);
INSERT INTO public.seed VALUES (1, 's');
-- @section stream
INSERT INTO public.early VALUES (1, 'one');
UPDATE public.early SET v = 'uno' WHERE k = 1;
CREATE TABLE public.live_audit (n serial PRIMARY KEY, op text NOT NULL DEFAULT 'x', id integer);
INSERT INTO public.live_audit (op, id) VALUES ('I', 10), ('U', 11);
CREATE TABLE public.live_pair (a integer NOT NULL DEFAULT 5, id integer NOT NULL, v text, PRIMARY KEY (a, id));
INSERT INTO public.live_pair VALUES (1, 1, 'p');
UPDATE public.live_pair SET v = 'q' WHERE a = 1 AND id = 1;
DELETE FROM public.live_audit WHERE id = 10;
DELETE FROM public.early WHERE k = 1;
