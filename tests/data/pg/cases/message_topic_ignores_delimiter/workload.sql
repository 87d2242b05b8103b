-- (session 23, found reading LogicalDecodingMessageMonitor) topic.delimiter=_ with logical decoding messages: Debezium's
-- message topic is the logical name + the constant ".message" (dbserver1.message), not joined with the delimiter;
-- the table's topic is dbserver1_public_a. The emulator wrote dbserver1_message.
-- @set topic.delimiter=_
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.a (id integer PRIMARY KEY, v text);
INSERT INTO public.a VALUES (1, 'one');
-- @section stream
INSERT INTO public.a VALUES (2, 'two');
SELECT pg_logical_emit_message(true, 'pfx', 'transactional');
SELECT pg_logical_emit_message(false, 'pfx', 'not transactional');
INSERT INTO public.a VALUES (3, 'three');
