-- Case truncate_notx: Debezium's default skipped.operations (t: TRUNCATE dropped), no transaction metadata,
-- a multi-table TRUNCATE, a transaction over two tables, REPLICA IDENTITY NOTHING (with a primary key)
-- and REPLICA IDENTITY FULL without a primary key.
-- Recorded with --config-from a config equal to record.py's built-in one minus skipped.operations
-- (so Debezium's default applies) plus provide.transaction.metadata=false.

-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);

CREATE TABLE public.acct (id integer PRIMARY KEY, owner text NOT NULL, balance numeric(10,2));
INSERT INTO public.acct VALUES (1, 'ann', 10.00), (2, 'bob', 20.50), (3, 'cy', NULL), (4, 'dee', 0.01),
  (5, 'ed', 5.00), (6, 'flo', 6.00), (7, 'gus', 7.00);
CREATE TABLE public.ledger (id serial PRIMARY KEY, acct_id integer NOT NULL, amount integer NOT NULL);
INSERT INTO public.ledger (acct_id, amount) VALUES (1, 100), (2, -5);

-- REPLICA IDENTITY NOTHING: inserts stream (key still from the primary key); updates/deletes are refused
-- by the server while the table is in a publication that publishes them
CREATE TABLE public.nothing_pk (id integer PRIMARY KEY, v text);
ALTER TABLE public.nothing_pk REPLICA IDENTITY NOTHING;
INSERT INTO public.nothing_pk VALUES (1, 'n1'), (2, 'n2');

-- FULL identity, no primary key: null keys, full "before"; duplicate rows
CREATE TABLE public.full_nopk (a integer, b text);
ALTER TABLE public.full_nopk REPLICA IDENTITY FULL;
INSERT INTO public.full_nopk VALUES (1, 'one'), (2, 'two'), (2, 'two');

CREATE TABLE public.tr_one (id integer PRIMARY KEY, v text);
INSERT INTO public.tr_one VALUES (1, 'x'), (2, 'y');
CREATE TABLE public.tr_a (id integer PRIMARY KEY, v text);
CREATE TABLE public.tr_b (id integer PRIMARY KEY, v text);
INSERT INTO public.tr_a VALUES (1, 'a1'), (2, 'a2');
INSERT INTO public.tr_b VALUES (1, 'b1');

-- @section stream
-- TRUNCATE: dropped by the default skipped.operations=t
TRUNCATE public.tr_one;
TRUNCATE public.tr_a, public.tr_b;
INSERT INTO public.tr_a VALUES (3, 'a3 after truncate');
-- TRUNCATE inside a transaction between two inserts
BEGIN;
INSERT INTO public.tr_one VALUES (10, 'before');
TRUNCATE public.tr_one;
INSERT INTO public.tr_one VALUES (11, 'after');
COMMIT;
-- transaction over two tables (no transaction topic records, source.txId still set)
BEGIN;
INSERT INTO public.acct VALUES (8, 'hal', 80.00);
INSERT INTO public.ledger (acct_id, amount) VALUES (8, 80);
UPDATE public.acct SET balance = balance - 1 WHERE id = 1;
INSERT INTO public.ledger (acct_id, amount) VALUES (1, -1);
DELETE FROM public.ledger WHERE id = 2;
COMMIT;
-- delete with tombstone (DEFAULT identity)
DELETE FROM public.acct WHERE id = 4;
-- REPLICA IDENTITY NOTHING
INSERT INTO public.nothing_pk VALUES (3, 'n3');
TRUNCATE public.nothing_pk;
-- FULL identity without a primary key
INSERT INTO public.full_nopk VALUES (3, 'three');
UPDATE public.full_nopk SET b = 'TWO' WHERE a = 2;
DELETE FROM public.full_nopk WHERE a = 1;
-- a rolled-back transaction: nothing
BEGIN;
INSERT INTO public.acct VALUES (99, 'rollback', 0);
TRUNCATE public.tr_a;
ROLLBACK;

-- @section incremental_locker
SELECT 1;

-- @section incremental
INSERT INTO public.debezium_signal (id, type, data) VALUES
  ('incr-1', 'execute-snapshot', '{"data-collections": ["public.acct"], "type": "incremental"}');
