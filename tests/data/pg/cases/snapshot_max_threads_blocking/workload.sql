-- snapshot.max.threads=2 and a blocking snapshot (execute-snapshot, type blocking): Debezium's blocking
-- @set snapshot.max.threads=2
-- snapshot is its snapshot source with the same pool, so a keyed table of 2-3 rows comes in key order (rows
-- updated out of key order after the initial snapshot), a keyless one in physical order
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t_a (id integer PRIMARY KEY, v text);
INSERT INTO public.t_a VALUES (1, 'one'), (2, 'two'), (3, 'three');
CREATE TABLE public.t_b (v text, n integer);
INSERT INTO public.t_b VALUES ('z', 1), ('y', 2);
-- @section stream
UPDATE public.t_a SET v = 'one!' WHERE id = 1;
UPDATE public.t_a SET v = 'two!' WHERE id = 2;
INSERT INTO public.t_b VALUES ('x', 3);
-- @quiet
INSERT INTO public.debezium_signal (id, type, data) VALUES
  ('blk-1', 'execute-snapshot', '{"data-collections": ["public.t_a", "public.t_b"], "type": "blocking"}');
-- @quiet
INSERT INTO public.t_a VALUES (4, 'four');
-- @section incremental_locker
SELECT 1;

-- @section incremental
INSERT INTO public.debezium_signal (id, type, data) VALUES
  ('incr-1', 'execute-snapshot', '{"data-collections": ["public.t_a"], "type": "incremental"}');
