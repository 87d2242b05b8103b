-- A deliberate difference (Debezium loses data): a blocking snapshot (execute-snapshot, type blocking) of a table
-- with a `money` primary key under snapshot.max.threads=2. Debezium's blocking snapshot is its chunked snapshot
-- source: the chunk query binds the key's bound as a double precision and fails ("operator does not exist: money <
-- double precision"); Debezium logs "Error while executing requested blocking snapshot" and resumes streaming,
-- without a record of the requested snapshot and without a restart: the rows asked for are never sent. The
-- emulator reads the blocking snapshot (its two rows; strict expected failure). Recorded with Debezium 3.6.3.
-- @set snapshot.max.threads=2
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
INSERT INTO public.plain VALUES (1, 'one'), (2, 'two');
-- @section stream
CREATE TABLE public.mk (k money PRIMARY KEY, v text);
INSERT INTO public.mk VALUES (1.5::money, 'a'), (2.5::money, 'b');
-- @quiet
INSERT INTO public.debezium_signal VALUES ('b1', 'execute-snapshot', '{"data-collections": ["public.mk"], "type": "blocking"}');
-- @quiet
INSERT INTO public.plain VALUES (3, 'three');
