-- *finding* (campaign seed 44711017; was snapshot_threads_money_key_lost, a strict expected failure, until session
-- 18): snapshot.max.threads=2 and a table whose primary key has a `money` column. Debezium's chunk query binds
-- the bound it read with pgjdbc's getObject (a Double for money) as a double precision: "ERROR: operator does not
-- exist: money < double precision" (or `>=`, whichever chunk runs first). The error is retriable: the snapshot is
-- abandoned and the task restarts every 10 s without end, writing nothing. Not data loss (nothing is committed,
-- the slot keeps every change), so the emulator stops where Debezium stops: before its first record, exit 1, one
-- line naming the error. Re-recorded in session 18: the recording ends at Debezium's first restart.
-- @set snapshot.max.threads=2
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.mk (k1 varchar(5) NOT NULL, k2 money NOT NULL, v text, PRIMARY KEY (k1, k2));
INSERT INTO public.mk VALUES ('abc', 12.34::money, 'a'), ('Z', 12.34::money, 'b');
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
INSERT INTO public.plain VALUES (1, 'one'), (2, 'two');
-- @section stream
INSERT INTO public.mk VALUES ('q', 1.5::money, 'c');
UPDATE public.plain SET v = 'uno' WHERE id = 1;
