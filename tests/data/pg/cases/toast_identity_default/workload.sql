-- TOASTed text/bytea/jsonb with REPLICA IDENTITY DEFAULT: unchanged values in updates (placeholder),
-- key updates carrying unchanged TOAST, deletes; the same with a custom placeholder and binary base64.
-- @set unavailable.value.placeholder=__toast_missing
-- @set binary.handling.mode=base64
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.tst (id integer PRIMARY KEY, big text, bin bytea, doc jsonb, arr text[], n integer);
INSERT INTO public.tst VALUES (1, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 500) i),
  (SELECT decode(string_agg(md5(i::text), ''), 'hex') FROM generate_series(1, 600) i),
  (SELECT jsonb_agg(md5(i::text)) FROM generate_series(1, 400) i),
  (SELECT array_agg(md5(i::text)) FROM generate_series(1, 400) i), 1);
-- @section stream
INSERT INTO public.tst SELECT 2, big || 'x', bin, doc, arr, 2 FROM public.tst WHERE id = 1;
UPDATE public.tst SET n = 10 WHERE id = 1;
UPDATE public.tst SET n = 20, big = 'short' WHERE id = 2;
UPDATE public.tst SET id = 3 WHERE id = 1;
UPDATE public.tst SET n = 30 WHERE id = 3;
DELETE FROM public.tst WHERE id = 3;
