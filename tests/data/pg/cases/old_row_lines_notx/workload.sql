-- Without transaction metadata: UPDATEs with their old row (REPLICA IDENTITY FULL) and DELETEs (FULL: the whole
-- old row; DEFAULT and USING INDEX: the old key) several to a transaction (the stream writes a table's second and
-- later changes of a transaction straight into their record lines): a keyless FULL table, a masked column, NULLs
-- printing a column default, a message.key.columns key outside the identity, a key change inside a transaction,
-- tombstones.
-- @set provide.transaction.metadata=false
-- @set column.mask.with.4.chars=public.od.secret
-- @set message.key.columns=public.ok:code
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.of (id integer PRIMARY KEY, a text, t timestamptz NOT NULL, m numeric(8,2), n integer DEFAULT 7, ok boolean);
ALTER TABLE public.of REPLICA IDENTITY FULL;
INSERT INTO public.of SELECT g, 'a' || g, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 hour', g * 1.5,
  CASE WHEN g % 2 = 0 THEN NULL ELSE g END, g % 3 = 0 FROM generate_series(1, 8) g;
CREATE TABLE public.nk (a integer, b text);
ALTER TABLE public.nk REPLICA IDENTITY FULL;
INSERT INTO public.nk VALUES (1, 'one'), (2, NULL), (3, 'three'), (4, 'four');
CREATE TABLE public.od (id integer PRIMARY KEY, secret text NOT NULL, t timestamptz NOT NULL, m numeric(6,2) NOT NULL, o text DEFAULT 'dflt', q integer NOT NULL DEFAULT 3);
INSERT INTO public.od SELECT g, 's' || g, timestamptz '2024-01-02 00:00:00+00' + g * interval '1 day', g * 0.25,
  CASE WHEN g % 2 = 0 THEN NULL ELSE 'o' || g END, g FROM generate_series(1, 8) g;
CREATE TABLE public.ui (id integer NOT NULL, code text NOT NULL, v text);
CREATE UNIQUE INDEX ui_code ON public.ui (code);
ALTER TABLE public.ui REPLICA IDENTITY USING INDEX ui_code;
INSERT INTO public.ui SELECT g, 'c' || g, 'v' || g FROM generate_series(1, 6) g;
CREATE TABLE public.ok (id integer PRIMARY KEY, code text NOT NULL, v text);
INSERT INTO public.ok SELECT g, 'k' || g, 'w' || g FROM generate_series(1, 6) g;
-- @section stream
BEGIN;
UPDATE public.of SET n = n + 1 WHERE id <= 4;
DELETE FROM public.of WHERE id IN (5, 6);
UPDATE public.of SET id = 50 WHERE id = 7;
UPDATE public.of SET a = NULL, m = NULL, n = NULL WHERE id = 8;
COMMIT;
BEGIN;
DELETE FROM public.of WHERE id <= 2;
INSERT INTO public.of VALUES (9, 'nine', '2024-03-01 12:00:00+00', NULL, NULL, true);
DELETE FROM public.of WHERE id = 9;
COMMIT;
BEGIN;
UPDATE public.nk SET b = 'x' WHERE a <= 2;
DELETE FROM public.nk WHERE a >= 3;
COMMIT;
DELETE FROM public.od WHERE id = 1;
BEGIN;
DELETE FROM public.od WHERE id IN (2, 3, 4);
UPDATE public.od SET o = NULL WHERE id = 5;
DELETE FROM public.od WHERE id = 5;
COMMIT;
DELETE FROM public.ui WHERE id = 1;
BEGIN;
DELETE FROM public.ui WHERE id IN (2, 3);
UPDATE public.ui SET v = NULL WHERE id = 4;
DELETE FROM public.ui WHERE id = 4;
COMMIT;
DELETE FROM public.ok WHERE id = 1;
BEGIN;
DELETE FROM public.ok WHERE id IN (2, 3);
UPDATE public.ok SET v = NULL WHERE id = 4;
DELETE FROM public.ok WHERE id = 4;
COMMIT;
