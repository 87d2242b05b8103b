-- *finding* (session 19, the s19 `genid` draw): Debezium's snapshot schema gives a generated (STORED) column its
-- generation expression as the default: pgjdbc's getColumns reports pg_get_expr(adbin) as COLUMN_DEF and Debezium's
-- PostgresDefaultValueConverter parses it as any default expression. A function call gives the type's placeholder
-- (text ""), a quoted literal inside the expression is taken out ("-x", a date), a boolean expression parses as
-- false, an arithmetic one is no number (no default). The emulator gave none of them a default. Streamed changes
-- leave generated columns out (pgoutput's Relation has none).
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.gd (id integer PRIMARY KEY, a integer, s text NOT NULL DEFAULT 'x',
  g_int integer GENERATED ALWAYS AS (a * 10) STORED,
  g_fn text GENERATED ALWAYS AS (upper(s) || '!') STORED,
  g_lit text GENERATED ALWAYS AS (s || '-x') STORED,
  g_vc varchar(20) GENERATED ALWAYS AS (lower(s)) STORED,
  g_bool boolean GENERATED ALWAYS AS (a > 0) STORED,
  g_num numeric(8,2) GENERATED ALWAYS AS (a * 1.5) STORED,
  g_date date GENERATED ALWAYS AS ('2020-01-01'::date + a) STORED,
  g_nn text NOT NULL GENERATED ALWAYS AS (coalesce(s, 'none')) STORED,
  g_js jsonb GENERATED ALWAYS AS (CASE WHEN a > 2 THEN '{"big": true}'::jsonb ELSE '{}'::jsonb END) STORED);
INSERT INTO public.gd (id, a, s) VALUES (1, 1, 'one'), (2, NULL, 'two');
-- @section stream
INSERT INTO public.gd (id, a, s) VALUES (3, 3, 'three');
UPDATE public.gd SET a = 5 WHERE id = 1;
-- @quiet
ALTER TABLE public.gd ALTER COLUMN g_fn DROP EXPRESSION;
INSERT INTO public.gd (id, a, s, g_fn) VALUES (4, 4, 'four', 'kept');
