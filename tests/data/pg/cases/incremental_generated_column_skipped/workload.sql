-- Case incremental_generated_column_skipped (campaign pg seed 41100008, minimized by hand): with pgoutput,
-- Debezium's incremental snapshot refreshes the table without its GENERATED ... STORED columns and maps the
-- maximum-key query's `SELECT *` row onto it: "Column 'b' not found in result set", caught outside the per-table
-- SQLException handling: the table is skipped, its window-open row written but no close. A second
-- execute-snapshot signal then snapshots a plain table normally.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.gen (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, a integer NOT NULL DEFAULT 3, b integer GENERATED ALWAYS AS (a * 2) STORED);
INSERT INTO public.gen (a) VALUES (1), (2);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
INSERT INTO public.plain VALUES (1, 'x'), (2, 'y');
-- @section stream
INSERT INTO public.gen (a) VALUES (5);
UPDATE public.gen SET a = 10 WHERE id = 1;
-- @section incremental
-- Both signals in one transaction: Debezium reads neither before the commit, so the first window's open row
-- always follows both (two autocommit INSERTs raced: a fast capture wrote it between them).
BEGIN;
INSERT INTO public.debezium_signal (id, type, data) VALUES ('incr-1', 'execute-snapshot', '{"data-collections": ["public.gen"], "type": "incremental"}');
INSERT INTO public.debezium_signal (id, type, data) VALUES ('incr-2', 'execute-snapshot', '{"data-collections": ["public.plain"], "type": "incremental"}');
COMMIT;
