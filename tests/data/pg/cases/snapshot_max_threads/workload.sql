-- snapshot.max.threads=2 (Debezium 3.6's chunked parallel snapshot): tables of <= 3 rows so that the
-- order within each topic is deterministic; rows inserted out of key order (chunked reads ORDER BY the key)
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t_a (id integer PRIMARY KEY, v text);
INSERT INTO public.t_a VALUES (3, 'three'), (1, 'one'), (2, 'two');
CREATE TABLE public.t_b (v text, n integer);
INSERT INTO public.t_b VALUES ('z', 1), ('y', 2), ('x', 3);
CREATE TABLE public.t_c (k1 text, k2 integer, note text, PRIMARY KEY (k1, k2));
INSERT INTO public.t_c VALUES ('b', 1, 'b1'), ('a', 2, 'a2'), ('a', 1, 'a1');
CREATE TABLE public.t_d (id bigint PRIMARY KEY, v text);
INSERT INTO public.t_d VALUES (20, 'twenty'), (10, 'ten');
CREATE TABLE public.t_e (id integer PRIMARY KEY, v text);
INSERT INTO public.t_e VALUES (7, 'seven');
UPDATE public.t_a SET v = 'one!' WHERE id = 1;
CREATE TABLE public.t_f (id integer PRIMARY KEY, v text);
-- @section stream
INSERT INTO public.t_a VALUES (4, 'four');
INSERT INTO public.t_f VALUES (1, 'f1');
-- @section incremental_locker
SELECT 1;

-- @section incremental
INSERT INTO public.debezium_signal (id, type, data) VALUES
  ('incr-1', 'execute-snapshot', '{"data-collections": ["public.t_e"], "type": "incremental"}');
