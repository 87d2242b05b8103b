-- Case key_column_excluded_snapshot (lead, session 10): column.include.list leaves out a table's primary-key column.
-- Debezium's snapshot does not read the excluded column but keeps it in the key, required: every snapshot row's key
-- holds the column's default (7 here), or the type's fallback (0) without one — all rows of a table share one key, so
-- a compacted topic or a sink keeps one row of the table. A deliberate difference (data loss): the emulator's
-- snapshot keys hold the rows' own values (KNOWN_DIFFERENCES in tests/test_pg_conformance_cases.py, strict xfail).
-- @set column.include.list=public\..*\.(id|v)
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.snap_plain (k integer PRIMARY KEY DEFAULT 7, v text);
INSERT INTO public.snap_plain VALUES (1, 'one'), (2, 'two');
CREATE TABLE public.snap_nodef (k integer PRIMARY KEY, v text);
INSERT INTO public.snap_nodef VALUES (1, 'one'), (2, 'two');
-- @section stream
INSERT INTO public.snap_nodef VALUES (3, 'three');
