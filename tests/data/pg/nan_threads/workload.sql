-- NaN in a NOT NULL numeric (decimal.handling.mode=precise) with snapshot.max.threads=2: Debezium stops in the snapshot,
-- and which records precede the stop depends on its threads: recorded twice with real Debezium 3.6.3 (the harness,
-- `python -m emulator.testing.differential diff --db pg --workload workload.sql`): run 1 delivered a1's two rows and
-- b2's first, run 2 a1's first row only. tests/differential/test_nan_threads.py checks the emulator stops too, with
-- records between the two.
-- @set snapshot.max.threads=2
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.a1 (id integer PRIMARY KEY, v text);
INSERT INTO public.a1 VALUES (1, 'x'), (2, 'y');
CREATE TABLE public.b2 (id integer PRIMARY KEY, n numeric NOT NULL);
INSERT INTO public.b2 VALUES (1, 1.5), (2, 2.5), (3, 'NaN'), (4, 4.5);
-- @section stream
INSERT INTO public.a1 VALUES (3, 'z');
