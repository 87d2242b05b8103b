-- Statements that must not break capture: functions, triggers writing captured tables, views,
-- materialized views, roles and grants, other schemas, sequences, temp/unlogged tables, comments,
-- logical decoding messages (transactional and not), a rule, a table renamed and one dropped.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.nz (id integer PRIMARY KEY, v text);
CREATE TABLE public.nz_audit (n serial PRIMARY KEY, op text, id integer);
CREATE TABLE public.nz_gone (id integer PRIMARY KEY);
INSERT INTO public.nz VALUES (1, 'one');
INSERT INTO public.nz_gone VALUES (1);
-- @section stream
CREATE FUNCTION public.nz_fn() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO public.nz_audit (op, id) VALUES (TG_OP, NEW.id); RETURN NEW; END $$;
CREATE TRIGGER nz_tr AFTER INSERT OR UPDATE ON public.nz FOR EACH ROW EXECUTE FUNCTION public.nz_fn();
CREATE VIEW public.nz_v AS SELECT id, upper(v) AS v FROM public.nz;
CREATE MATERIALIZED VIEW public.nz_mv AS SELECT count(*) AS n FROM public.nz;
CREATE ROLE nz_role NOLOGIN;
GRANT SELECT ON public.nz TO nz_role;
CREATE SCHEMA other;
CREATE TABLE other.t (id integer PRIMARY KEY, w text);
INSERT INTO other.t VALUES (1, 'other');
CREATE SEQUENCE public.nz_seq;
SELECT nextval('public.nz_seq');
CREATE INDEX nz_idx ON public.nz (v);
COMMENT ON TABLE public.nz IS 'commented';
CREATE TEMP TABLE nz_tmp (id integer);
INSERT INTO nz_tmp VALUES (1);
CREATE UNLOGGED TABLE public.nz_unlogged (id integer PRIMARY KEY);
INSERT INTO public.nz_unlogged VALUES (1);
CREATE RULE nz_rule AS ON DELETE TO public.nz_v DO INSTEAD DELETE FROM public.nz WHERE id = OLD.id;
INSERT INTO public.nz VALUES (2, 'two');
UPDATE public.nz SET v = 'uno' WHERE id = 1;
DELETE FROM public.nz_v WHERE id = 2;
REFRESH MATERIALIZED VIEW public.nz_mv;
SELECT pg_logical_emit_message(true, 'noise', 'in tx');
SELECT pg_logical_emit_message(false, 'noise', 'outside tx');
-- @quiet
ALTER TABLE public.nz_gone RENAME TO nz_renamed;
INSERT INTO public.nz_renamed VALUES (2);
-- the insert's key comes from the catalog, which both engines read only after its Relation message: the
-- DROP waits until both have emitted it (without the wait, either may read the catalog after the DROP)
-- @quiet
DROP TABLE public.nz_renamed;
DROP VIEW public.nz_v;
TRUNCATE public.nz_audit;
