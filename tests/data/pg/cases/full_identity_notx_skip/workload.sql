-- REPLICA IDENTITY FULL UPDATEs and DELETEs (the JSON-text path of the pgoutput stream) without transaction
-- metadata, with skip.messages.without.change: unchanged-TOAST values in the new tuple, an UPDATE of an
-- excluded column only and one that sets the same values (both skipped), 0 -> -0 in a double, a key change
-- (delete + tombstone + create), deletes with tombstones, a keyless FULL table; DEFAULT identity DELETEs (old
-- key tuples) with a masked column, NOT NULL columns without defaults and a message.key.columns key outside
-- the identity.
-- @set provide.transaction.metadata=false
-- @set skip.messages.without.change=true
-- @set column.exclude.list=public.ff.ex
-- @set column.mask.with.4.chars=public.kd.secret
-- @set message.key.columns=public.kc:code
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.ff (id integer PRIMARY KEY, a text, d double precision, big text, n integer DEFAULT 7, ex text);
ALTER TABLE public.ff REPLICA IDENTITY FULL;
INSERT INTO public.ff VALUES (1, 'a', 0, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 1200) i), 1, 'x');
INSERT INTO public.ff VALUES (2, 'b', 1.5, 'small', NULL, 'x');
CREATE TABLE public.fk (a integer, b text);
ALTER TABLE public.fk REPLICA IDENTITY FULL;
CREATE TABLE public.kd (id integer PRIMARY KEY, secret text NOT NULL, t timestamptz NOT NULL, m numeric(6,2) NOT NULL, o text DEFAULT 'dflt', q integer NOT NULL DEFAULT 3);
INSERT INTO public.kd VALUES (1, 's1', '2024-01-01 00:00:00+00', 1.25, 'x', 4), (2, 's2', '2024-01-02 00:00:00+00', 2.50, NULL, 5);
CREATE TABLE public.kc (id integer PRIMARY KEY, code text NOT NULL, v text);
INSERT INTO public.kc VALUES (1, 'c1', 'v1'), (2, 'c2', 'v2');
-- @section stream
UPDATE public.ff SET n = 2 WHERE id = 1;
UPDATE public.ff SET a = 'a2', n = NULL WHERE id = 1;
UPDATE public.ff SET ex = 'y' WHERE id = 1;
UPDATE public.ff SET a = a WHERE id = 2;
UPDATE public.ff SET d = '-0' WHERE id = 1;
UPDATE public.ff SET d = 2.5, big = big || 'z' WHERE id = 1;
UPDATE public.ff SET id = 20 WHERE id = 2;
BEGIN;
UPDATE public.ff SET a = 'in tx' WHERE id = 20;
DELETE FROM public.ff WHERE id = 1;
COMMIT;
DELETE FROM public.ff WHERE id = 20;
INSERT INTO public.fk VALUES (1, 'one'), (2, NULL), (2, NULL);
UPDATE public.fk SET b = 'uno' WHERE a = 1;
UPDATE public.fk SET b = NULL WHERE a = 1;
DELETE FROM public.fk WHERE a = 2;
UPDATE public.kd SET o = NULL WHERE id = 1;
DELETE FROM public.kd WHERE id = 1;
DELETE FROM public.kd WHERE id = 2;
UPDATE public.kc SET v = 'v1b' WHERE id = 1;
DELETE FROM public.kc WHERE id = 1;
BEGIN;
DELETE FROM public.kc WHERE id = 2;
INSERT INTO public.kc VALUES (3, 'c3', NULL);
DELETE FROM public.kc WHERE id = 3;
COMMIT;
