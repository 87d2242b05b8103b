-- Without transaction metadata: UPDATEs with unchanged TOAST values several to a transaction (the stream
-- writes a table's second and later changes of a transaction straight into their record lines), in a
-- DEFAULT-identity table (the placeholder, a custom one, bytes as base64) and a FULL one (the old row's value),
-- rows with and without TOASTed values mixed in one transaction, a column default printed for NULL.
-- @set provide.transaction.metadata=false
-- @set unavailable.value.placeholder=__gone
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.td (id integer PRIMARY KEY, big text, bin bytea, doc jsonb, n integer DEFAULT 5);
INSERT INTO public.td SELECT g, (SELECT string_agg(md5((i + g)::text), '') FROM generate_series(1, 80) i),
  (SELECT decode(string_agg(md5((i + g)::text), ''), 'hex') FROM generate_series(1, 160) i),
  (SELECT jsonb_agg(md5((i + g)::text)) FROM generate_series(1, 80) i), g FROM generate_series(1, 4) g;
INSERT INTO public.td VALUES (5, 'small', '\x01', '{}', 5);
CREATE TABLE public.tf (id integer PRIMARY KEY, big text, n integer DEFAULT 5);
ALTER TABLE public.tf REPLICA IDENTITY FULL;
INSERT INTO public.tf SELECT g, (SELECT string_agg(md5((i + g)::text), '') FROM generate_series(1, 80) i), g FROM generate_series(1, 4) g;
INSERT INTO public.tf VALUES (5, 'small', 5);
-- @section stream
UPDATE public.td SET n = n + 10;
UPDATE public.td SET n = NULL WHERE id IN (2, 5);
BEGIN;
UPDATE public.td SET n = 1 WHERE id = 5;
UPDATE public.td SET n = 2 WHERE id = 1;
UPDATE public.td SET n = 3 WHERE id = 5;
UPDATE public.td SET big = 'short', n = 4 WHERE id = 1;
UPDATE public.td SET n = 5 WHERE id = 1;
COMMIT;
UPDATE public.tf SET n = n + 10;
UPDATE public.tf SET n = NULL WHERE id IN (2, 5);
BEGIN;
UPDATE public.tf SET n = 1 WHERE id = 5;
UPDATE public.tf SET n = 2 WHERE id = 1;
UPDATE public.tf SET big = 'short' WHERE id = 1;
COMMIT;
