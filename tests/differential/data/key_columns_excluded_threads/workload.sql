-- Recorded for tests/differential/test_deliberate_keys.py with `--set snapshot.max.threads=2` (session 19):
-- *finding* (campaign seed 44708013), a deliberate difference: message.key.columns naming a column that
-- column.include.list leaves out. Debezium builds a snapshot row's key from the filtered row, so the key column has
-- no value: null where the column is nullable, the schema's fallback "" where it is NOT NULL. A streamed change's key
-- holds the value ("c", "bb"). Every snapshot row of a table then has the same key (a compacted topic keeps one of
-- them): data lost. The emulator writes the value in the snapshot too (strict expected failure).
-- @set column.include.list=public\..*\.(id|k2|v)
-- @set message.key.columns=public\.kc_nk:code;public\.kc_pk:k2,code
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.kc_nk (id integer NOT NULL, code varchar(8), v text);
ALTER TABLE public.kc_nk REPLICA IDENTITY FULL;
INSERT INTO public.kc_nk VALUES (1, 'a', 'one'), (2, 'b', 'two');
CREATE TABLE public.kc_pk (id integer PRIMARY KEY, code varchar(8) NOT NULL, k2 integer, v text);
INSERT INTO public.kc_pk VALUES (1, 'a', 1, 'one'), (2, 'b', 2, 'two');
-- @section stream
INSERT INTO public.kc_nk VALUES (3, 'c', 'three');
UPDATE public.kc_nk SET code = 'bb' WHERE id = 2;
INSERT INTO public.kc_pk VALUES (3, 'c', 3, 'three');
UPDATE public.kc_pk SET v = 'uno' WHERE id = 1;
DELETE FROM public.kc_pk WHERE id = 2;
