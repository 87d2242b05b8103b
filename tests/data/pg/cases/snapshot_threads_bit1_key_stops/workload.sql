-- snapshot.max.threads=2 and a bit(1) primary key: pgjdbc reads a one-bit value as a Boolean and Debezium binds
-- the chunk bound back as a boolean: "ERROR: operator does not exist: bit <= boolean" (the table is one chunk:
-- its only bound is its maximum key). The error is retriable: the task restarts every 10 s, nothing is
-- written; the recording ends at the first restart. The emulator stops before its first record.
-- @set snapshot.max.threads=2
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.bk (k bit(1) PRIMARY KEY, v text);
INSERT INTO public.bk VALUES (B'1', 'a');
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
INSERT INTO public.plain VALUES (1, 'one');
-- @section stream
INSERT INTO public.bk VALUES (B'0', 'c');
