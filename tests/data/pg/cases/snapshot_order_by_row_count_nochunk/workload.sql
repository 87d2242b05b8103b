-- snapshot.tables.order.by.row.count=descending off the chunked path (one thread, no multiplier): Debezium 3.6
-- asks rowCountForTable, which the PostgreSQL connector does not override (OptionalLong.empty(): all 0), so
-- the stable sort keeps the tables in their order.
-- @set snapshot.tables.order.by.row.count=descending
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t_a (id integer PRIMARY KEY, v text);
INSERT INTO public.t_a VALUES (1, 'one'), (2, 'two');
CREATE TABLE public.t_b (v text, n integer);
INSERT INTO public.t_b VALUES ('z', 1), ('y', 2), ('x', 3), ('w', 4), ('v', 5);
CREATE TABLE public.t_c (id integer PRIMARY KEY, v text);
INSERT INTO public.t_c VALUES (3, 'c3'), (1, 'c1'), (2, 'c2');
CREATE TABLE public.t_d (id integer PRIMARY KEY, v text);
INSERT INTO public.t_d VALUES (1, 'd1'), (2, 'd2');
CREATE TABLE public.t_e (id integer PRIMARY KEY, v text);
CREATE TABLE public.t_f (id integer PRIMARY KEY, v text);
INSERT INTO public.t_f SELECT g, 'f' || g FROM generate_series(1, 4) g;
ANALYZE public.t_f;
-- @section stream
INSERT INTO public.t_e VALUES (1, 'e1');
