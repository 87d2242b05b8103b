-- A transaction whose only change is a transactional logical message filtered out by message.prefix.include.list:
-- Debezium begins it all the same (BEGIN, END with event_count 0), as for a change of a table it does not capture;
-- the emulator wrote nothing (campaign seed 43200005, scenario messages, written small by hand: a transaction
-- holding a message and a table change lists them in a HashMap order that depends on a Java identity hash).
-- @set message.prefix.include.list=keep.*
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.m (id integer PRIMARY KEY, v text);
INSERT INTO public.m VALUES (1, 'a');
-- @section stream
BEGIN;
SELECT pg_logical_emit_message(true, 'drop_me', 'x');
COMMIT;
INSERT INTO public.m VALUES (2, 'b');
BEGIN;
SELECT pg_logical_emit_message(true, 'keep_a', 'k');
COMMIT;
BEGIN;
SELECT pg_logical_emit_message(true, 'drop_me', 'y');
SELECT pg_logical_emit_message(false, 'drop_me', 'z');
SELECT pg_logical_emit_message(true, 'drop_me', 'y2');
COMMIT;
BEGIN;
INSERT INTO public.m VALUES (3, 'c');
SELECT pg_logical_emit_message(true, 'drop_me', 'w');
COMMIT;
