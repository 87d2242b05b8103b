-- Case snapshot_threads_null_key_lost (diffcamp7, session 13): snapshot.max.threads=2, tables keyed by a unique index
-- on a nullable column holding NULLs. Debezium 3.6.3's chunked snapshot bounds each chunk with key comparisons, which a
-- NULL never satisfies, and its maximum key (ORDER BY k DESC: NULLs first on PostgreSQL) is NULL, so the last chunk
-- (`k >= ? AND k <= NULL`) reads nothing: nk1 loses both rows, nk2 all but k=5. A deliberate difference (data loss):
-- the emulator reads such a table as one chunk, every row (KNOWN_DIFFERENCES in tests/test_pg_conformance_cases.py,
-- strict xfail; README "Differences from Debezium").
-- @set snapshot.max.threads=2
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.nk1 (k integer, v text);
CREATE UNIQUE INDEX nk1_k ON public.nk1 (k);
INSERT INTO public.nk1 VALUES (1, 'a'), (NULL, 'b');
CREATE TABLE public.nk2 (k integer, v text);
CREATE UNIQUE INDEX nk2_k ON public.nk2 (k);
INSERT INTO public.nk2 VALUES (5, 'a'), (NULL, 'b'), (7, 'c');
CREATE TABLE public.k1 (id integer PRIMARY KEY, v text);
INSERT INTO public.k1 VALUES (2, 'two'), (1, 'one');
-- @section stream
INSERT INTO public.nk1 VALUES (3, 'c');
