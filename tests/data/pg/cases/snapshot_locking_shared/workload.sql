-- snapshot.locking.mode=shared: Debezium's SharedSnapshotLock takes LOCK TABLE ... IN ACCESS SHARE MODE on each
-- captured table in the snapshot transaction (PostgresSnapshotChangeEventSource.lockTablesForSchemaSnapshot), held
-- to its end; the records are those of `none`.
-- @set snapshot.locking.mode=shared
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE SCHEMA "odd s";
CREATE TABLE public.t_a (id integer PRIMARY KEY, v text);
INSERT INTO public.t_a VALUES (1, 'one'), (2, 'two');
CREATE TABLE "odd s"."T b" (id integer PRIMARY KEY, "v-x" text);
INSERT INTO "odd s"."T b" VALUES (1, 'b1');
CREATE TABLE public.t_p (id integer, k text, PRIMARY KEY (id, k)) PARTITION BY LIST (k);
CREATE TABLE public.t_p1 PARTITION OF public.t_p FOR VALUES IN ('a');
CREATE TABLE public.t_p2 PARTITION OF public.t_p FOR VALUES IN ('b');
INSERT INTO public.t_p VALUES (1, 'a'), (2, 'b');
-- @section stream
INSERT INTO public.t_a VALUES (3, 'three');
UPDATE "odd s"."T b" SET "v-x" = 'b1!' WHERE id = 1;
INSERT INTO public.t_p VALUES (3, 'b');
ALTER TABLE public.t_a ADD COLUMN w integer DEFAULT 7;
INSERT INTO public.t_a VALUES (4, 'four');
