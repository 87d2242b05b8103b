-- Case filters_shaping: table/column filters and value shaping.
-- Recorded with --set table.include.list=public.t_a,public.t_b --set column.exclude.list=public.t_a.extra
--   --set message.key.columns=public.t_b:code --set column.mask.with.5.chars=public.t_a.secret
--   --set column.truncate.to.3.chars=public.t_a.note --set tombstones.on.delete=false --set skipped.operations=u
-- public.t_c and the signal table are not in table.include.list.

-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);

CREATE TABLE public.t_a (
  id     integer PRIMARY KEY,
  name   text NOT NULL,
  secret text,
  note   varchar(40),
  extra  text
);
INSERT INTO public.t_a VALUES
  (1, 'one', 'hunter2', 'a long note', 'x1'),
  (2, 'two', NULL, NULL, NULL),
  (3, 'three', '', 'ab', 'x3'),
  (4, 'four', 'pw', E'h\u00e9\u2603llo', 'x4'),
  (5, 'five', 'longer secret value', E'a\U0001F600b', 'x5'),
  (6, 'six', 's6', 'abc', 'x6');

-- key from message.key.columns (code) instead of the primary key (id); DEFAULT identity
CREATE TABLE public.t_b (id integer PRIMARY KEY, code varchar(10) NOT NULL, val integer);
INSERT INTO public.t_b VALUES (1, 'B1', 10), (2, 'B2', 20), (3, 'B3', 30);

-- not captured (not in table.include.list)
CREATE TABLE public.t_c (id integer PRIMARY KEY, v text);
INSERT INTO public.t_c VALUES (1, 'c1'), (2, 'c2');

-- @section stream
INSERT INTO public.t_a VALUES (10, 'ten', 'topsecret', 'streamed note', 'x10');
INSERT INTO public.t_a VALUES (11, 'eleven', NULL, 'no', NULL);
-- updates are skipped (skipped.operations=u), also a primary-key change
UPDATE public.t_a SET name = 'ONE', note = 'changed note' WHERE id = 1;
UPDATE public.t_a SET id = 12 WHERE id = 11;
-- deletes: no tombstones (tombstones.on.delete=false)
DELETE FROM public.t_a WHERE id = 2;
INSERT INTO public.t_b VALUES (4, 'B4', 40);
UPDATE public.t_b SET val = 41 WHERE id = 4;
-- DEFAULT identity: the old tuple holds only id, so the message key column (code) is not in it
DELETE FROM public.t_b WHERE id = 3;
-- excluded table only
INSERT INTO public.t_c VALUES (3, 'c3');
UPDATE public.t_c SET v = 'c1b' WHERE id = 1;
-- transaction mixing captured and excluded tables
BEGIN;
INSERT INTO public.t_c VALUES (4, 'c4');
INSERT INTO public.t_a VALUES (13, 'thirteen', 'sec13', 'note13', 'x13');
UPDATE public.t_a SET secret = 'new' WHERE id = 13;
INSERT INTO public.t_b VALUES (5, 'B5', 50);
DELETE FROM public.t_c WHERE id = 2;
COMMIT;
-- transaction with only skipped updates
BEGIN;
UPDATE public.t_a SET name = 'SIX' WHERE id = 6;
UPDATE public.t_b SET val = 11 WHERE id = 1;
COMMIT;

-- @section incremental_locker
SELECT 1;

-- @section incremental
-- incremental snapshot of t_a: masking, truncation and the excluded column on the chunk-read path
INSERT INTO public.debezium_signal (id, type, data) VALUES
  ('incr-1', 'execute-snapshot', '{"data-collections": ["public.t_a"], "type": "incremental"}');
