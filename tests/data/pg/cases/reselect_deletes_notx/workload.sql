-- post.processors (ReselectColumnsPostProcessor, defaults) without transaction metadata: the DELETEs of tables it
-- selects, which it never touches, as lines (REPLICA IDENTITY DEFAULT: the old key; FULL: the old row), beside its
-- UPDATEs and INSERTs read again; several DELETEs per transaction (the first of a table's made before its old-key
-- reader exists), and the same tables' UPDATEs and DELETEs in one transaction.
-- @set post.processors=reselector
-- @set reselector.type=io.debezium.processors.reselect.ReselectColumnsPostProcessor
-- @set provide.transaction.metadata=false
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t_def (id integer PRIMARY KEY, big text, n integer, note text);
ALTER TABLE public.t_def ALTER big SET STORAGE EXTERNAL;
INSERT INTO public.t_def SELECT g, (SELECT string_agg(md5(i::text || g), '') FROM generate_series(1, 70) i), g, 'x' || g FROM generate_series(1, 8) g;
CREATE TABLE public.t_full (id integer PRIMARY KEY, big text, n integer, note text);
ALTER TABLE public.t_full ALTER big SET STORAGE EXTERNAL;
ALTER TABLE public.t_full REPLICA IDENTITY FULL;
INSERT INTO public.t_full SELECT g, (SELECT string_agg(md5(i::text || g), '') FROM generate_series(1, 70) i), g, 'y' || g FROM generate_series(1, 8) g;
CREATE TABLE public.t_plain (id integer PRIMARY KEY, n integer NOT NULL);
INSERT INTO public.t_plain SELECT g, g FROM generate_series(1, 4) g;
-- @section stream
UPDATE public.t_def SET n = 10 WHERE id = 1;
UPDATE public.t_full SET n = 10 WHERE id = 1;
DELETE FROM public.t_def WHERE id = 8;
DELETE FROM public.t_full WHERE id = 8;
BEGIN;
DELETE FROM public.t_def WHERE id IN (6, 7);
DELETE FROM public.t_full WHERE id IN (6, 7);
DELETE FROM public.t_plain WHERE id = 4;
COMMIT;
BEGIN;
UPDATE public.t_def SET note = NULL WHERE id = 2;
DELETE FROM public.t_def WHERE id = 5;
UPDATE public.t_full SET note = 'z' WHERE id = 2;
DELETE FROM public.t_full WHERE id = 5;
INSERT INTO public.t_def (id, n) VALUES (20, 1);
COMMIT;
DELETE FROM public.t_def WHERE id = 4;
DELETE FROM public.t_full WHERE id = 4;
UPDATE public.t_plain SET n = 30 WHERE id = 3;
DELETE FROM public.t_plain WHERE id = 3;
