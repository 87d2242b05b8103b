-- (session 24) guardrail.collections.max=4 with guardrail.collections.limit.action=fail: Debezium counts, at task
-- start, pgjdbc's TABLE and PARTITIONED TABLE that the filters capture: here the signal table, t1, the partitioned p
-- and its two partitions (the unlogged u excluded by table.exclude.list; the view and the materialized view not
-- counted): 5. One above the maximum: the task stops before any record.
-- @set guardrail.collections.max=4
-- @set guardrail.collections.limit.action=fail
-- @set table.exclude.list=public\.u
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t1 (id integer PRIMARY KEY, v text);
CREATE TABLE public.p (id integer, k integer, PRIMARY KEY (id, k)) PARTITION BY RANGE (k);
CREATE TABLE public.p1 PARTITION OF public.p FOR VALUES FROM (0) TO (10);
CREATE TABLE public.p2 PARTITION OF public.p FOR VALUES FROM (10) TO (20);
CREATE UNLOGGED TABLE public.u (id integer PRIMARY KEY);
CREATE VIEW public.v AS SELECT * FROM public.t1;
CREATE MATERIALIZED VIEW public.mv AS SELECT * FROM public.t1;
INSERT INTO public.t1 VALUES (1, 'one');
INSERT INTO public.p VALUES (1, 5), (2, 15);
-- @section stream
INSERT INTO public.t1 VALUES (2, 'two');
INSERT INTO public.p VALUES (3, 7);
