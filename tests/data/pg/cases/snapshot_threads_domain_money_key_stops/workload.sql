-- snapshot.max.threads.multiplier=2 with one thread (Debezium's chunked path) and a key column of a domain over
-- money: the column is described with its base type, pgjdbc reads a Double, Debezium binds a double precision:
-- "ERROR: operator does not exist: dmoney < double precision". Retriable: the task restarts every 10 s, nothing
-- is written; the recording ends at the first restart. The emulator stops before its first record.
-- @set snapshot.max.threads.multiplier=2
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE DOMAIN public.dmoney AS money CHECK (VALUE > 0::money);
CREATE TABLE public.dm (id integer NOT NULL, amount public.dmoney NOT NULL, v text, PRIMARY KEY (id, amount));
INSERT INTO public.dm VALUES (1, 2.5, 'a'), (2, 3.5, 'b'), (3, 1.25, 'c');
-- @section stream
INSERT INTO public.dm VALUES (4, 9, 'd');
