-- *finding* (session 21, campaign draw 44746029: session 20's colkeys with skip.messages.without.change=true): an
-- UPDATE that changes only a key column the value leaves out (message.key.columns names `code`, which
-- column.include.list excludes). Debezium's RelationalChangeRecordEmitter.emitUpdateRecord compares the value
-- Structs first and skips the event when they are equal, before it looks at the key: no delete/create pair, and the
-- transaction's END counts no event. The emulator compared the keys first and emitted the key change (3 records).
-- An UPDATE that changes the key and a value column is a key change in both. (A table whose primary key column the
-- filter leaves out, or rows in the snapshot, are no use here: Debezium's snapshot keys of them are the deliberate
-- key_column(s)_excluded_snapshot(_lost).)
-- @set skip.messages.without.change=true
-- @set column.include.list=public\.kc\.(id|v),public\.other\..*,public\.debezium_signal\..*
-- @set message.key.columns=public\.kc:code
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.kc (id integer NOT NULL, code varchar(8), v text);
ALTER TABLE public.kc REPLICA IDENTITY FULL;
CREATE TABLE public.other (id integer PRIMARY KEY, v text);
INSERT INTO public.other VALUES (1, 'snapshot');
-- @section stream
INSERT INTO public.kc VALUES (1, 'a', 'one'), (2, 'b', 'two');
-- @quiet
UPDATE public.kc SET code = 'bb' WHERE id = 2;
-- @quiet
UPDATE public.kc SET code = 'aa', v = 'uno' WHERE id = 1;
-- @quiet
UPDATE public.kc SET code = 'cc' WHERE id = 2;
-- @quiet
BEGIN;
UPDATE public.kc SET code = 'dd' WHERE id = 2;
UPDATE public.kc SET v = 'dos' WHERE id = 2;
COMMIT;
INSERT INTO public.kc VALUES (3, 'c', 'three');
