-- include.schema.comments=true: Debezium 3.6.3's PostgreSQL connector puts no column comment in its records (no
-- field doc) in the snapshot, the stream, after COMMENT ON mid-stream or on an added column. Recorded with the harness.
-- @set include.schema.comments=true
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.c1 (id integer PRIMARY KEY, a integer, b text NOT NULL DEFAULT 'b', n numeric(10,2));
COMMENT ON COLUMN public.c1.id IS 'the key';
COMMENT ON COLUMN public.c1.a IS 'a "quoted" comment, with ünïcode';
COMMENT ON COLUMN public.c1.n IS 'money';
COMMENT ON TABLE public.c1 IS 'table comment';
INSERT INTO public.c1 VALUES (1, 1, 'one', 1.5);
-- @section stream
INSERT INTO public.c1 VALUES (2, 2, 'two', 2.5);
COMMENT ON COLUMN public.c1.b IS 'added later';
INSERT INTO public.c1 VALUES (3, 3, 'three', 3.5);
ALTER TABLE public.c1 ADD COLUMN d integer;
COMMENT ON COLUMN public.c1.d IS 'new column';
INSERT INTO public.c1 VALUES (4, 4, 'four', 4.5, 4);
COMMENT ON COLUMN public.c1.a IS NULL;
COMMENT ON COLUMN public.c1.id IS '';
UPDATE public.c1 SET a = 10 WHERE id = 1;
DELETE FROM public.c1 WHERE id = 2;
