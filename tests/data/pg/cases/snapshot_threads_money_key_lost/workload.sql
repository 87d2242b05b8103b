-- *finding* (campaign seed 44711017), a deliberate difference: snapshot.max.threads=2 and a table whose primary key
-- has a `money` column. Debezium's chunk query compares the key with a bound it binds as a double precision
-- (pgjdbc reads money as a double): "ERROR: operator does not exist: money < double precision". The snapshot fails,
-- the error is retriable, and the engine restarts every 10 s without end: no record of any table is ever written
-- (data lost). The emulator snapshots and streams both tables (strict expected failure). The recording ends with
-- the harness's timeout.
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
