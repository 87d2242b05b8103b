-- Tables without a primary key: the first unique index (by name) is the key; expression and partial
-- unique indexes; a nullable unique column.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.u1 (a integer NOT NULL, b text NOT NULL, c integer);
CREATE UNIQUE INDEX u1_z_ab ON public.u1 (b, a);
CREATE UNIQUE INDEX u1_a_c ON public.u1 (c);
ALTER TABLE public.u1 REPLICA IDENTITY FULL;
CREATE TABLE public.u2 (a integer NOT NULL, b text);
CREATE UNIQUE INDEX u2_expr ON public.u2 (lower(b));
CREATE UNIQUE INDEX u2_zz ON public.u2 (a);
ALTER TABLE public.u2 REPLICA IDENTITY USING INDEX u2_zz;
CREATE TABLE public.u3 (a integer, b text);
ALTER TABLE public.u3 REPLICA IDENTITY FULL;
INSERT INTO public.u1 VALUES (1, 'x', 10), (2, 'y', NULL);
INSERT INTO public.u2 VALUES (1, 'X'), (2, 'Y');
INSERT INTO public.u3 VALUES (1, 'p');
-- @section stream
INSERT INTO public.u1 VALUES (3, 'z', 30);
UPDATE public.u1 SET c = 31 WHERE a = 3;
UPDATE public.u1 SET b = 'zz' WHERE a = 3;
DELETE FROM public.u1 WHERE a = 1;
INSERT INTO public.u2 VALUES (3, 'Z');
UPDATE public.u2 SET a = 30 WHERE a = 3;
DELETE FROM public.u2 WHERE a = 1;
INSERT INTO public.u3 VALUES (2, 'q');
UPDATE public.u3 SET b = 'q2' WHERE a = 2;
DELETE FROM public.u3 WHERE a = 1;
-- @section incremental
INSERT INTO public.debezium_signal (id, type, data) VALUES ('incr-1', 'execute-snapshot', '{"data-collections": ["public.u1"], "type": "incremental"}');
