-- Case snapshot_max_threads_multiplier: snapshot.max.threads=1 (the default) with
-- snapshot.max.threads.multiplier=2. Debezium 3.6 takes its chunked snapshot path whenever the thread count
-- or any multiplier is above 1 (RelationalSnapshotChangeEventSource.isUseNonChunkedSnapshots): keyed tables
-- are cut into threads x multiplier chunks, each read ORDER BY the key, so rows come in key order even on
-- one thread; a keyless table is one chunk in physical order. One thread: the whole output's order is
-- deterministic. Rows are inserted (and one moved by an UPDATE) out of key order.
-- @set snapshot.max.threads.multiplier=2
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t_a (id integer PRIMARY KEY, v text);
INSERT INTO public.t_a VALUES (3, 'three'), (1, 'one'), (2, 'two'), (5, 'five'), (4, 'four');
UPDATE public.t_a SET v = 'one!' WHERE id = 1;
CREATE TABLE public.t_b (v text, n integer);
INSERT INTO public.t_b VALUES ('z', 1), ('y', 2), ('x', 3);
CREATE TABLE public.t_c (k1 text, k2 integer, note text, PRIMARY KEY (k1, k2));
INSERT INTO public.t_c VALUES ('b', 1, 'b1'), ('a', 2, 'a2'), ('a', 1, 'a1');
CREATE TABLE public.t_e (id integer PRIMARY KEY, v text);
INSERT INTO public.t_e VALUES (7, 'seven');
CREATE TABLE public.t_f (id integer PRIMARY KEY, v text);
-- @section stream
INSERT INTO public.t_a VALUES (6, 'six');
