-- post.processors with two ReselectColumnsPostProcessor aliases: `inc` in the current convention
-- (post.processors.inc.*: an include list in another case, reselect.null.values=false) and `bykey` in the older
-- one (bykey.*: an exclude list, reselect.use.event.key=true under message.key.columns,
-- reselect.unavailable.values=false), with binary.handling.mode=base64 (an unchanged bytea is null) and
-- hstore.handling.mode=map; column mappers (a value read again skips them: a truncated column's whole text, a
-- hashed one's plain value; a masked NULL prints the mask and is never read again). Each row is changed in one
-- stream transaction only.
-- @set post.processors=inc,bykey
-- @set post.processors.inc.type=io.debezium.processors.reselect.ReselectColumnsPostProcessor
-- @set post.processors.inc.reselect.columns.include.list=PUBLIC.T_INC:BIG,public\.t_inc:h.*
-- @set post.processors.inc.reselect.null.values=false
-- @set bykey.type=io.debezium.processors.reselect.ReselectColumnsPostProcessor
-- @set bykey.reselect.columns.exclude.list=public.t_inc:.*,public.t_key:skip
-- @set bykey.reselect.use.event.key=true
-- @set bykey.reselect.unavailable.values=FALSE
-- @set message.key.columns=public.t_key:code
-- @set binary.handling.mode=base64
-- @set hstore.handling.mode=map
-- @set column.truncate.to.3.chars=public.t_map.tr
-- @set column.mask.with.4.chars=public.t_map.mk
-- @set column.mask.hash.SHA-256.with.salt.s1=public.t_map.hs
-- @section pre
CREATE EXTENSION IF NOT EXISTS hstore;
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t_inc (id integer PRIMARY KEY, big text, other text, hs hstore, n integer, note text);
INSERT INTO public.t_inc SELECT g, (SELECT string_agg(md5(i::text || g), '') FROM generate_series(1, 500) i),
  (SELECT string_agg(md5(i::text || g || 'o'), '') FROM generate_series(1, 500) i),
  (SELECT hstore(array_agg('k' || i), array_agg(md5(i::text || g))) FROM generate_series(1, 300) i), g, NULL
  FROM generate_series(1, 4) g;
CREATE TABLE public.t_key (id integer PRIMARY KEY, code text NOT NULL UNIQUE, big text, bin bytea, skip text, n integer);
INSERT INTO public.t_key SELECT g, 'code-' || g, (SELECT string_agg(md5(i::text || g), '') FROM generate_series(1, 500) i),
  (SELECT decode(string_agg(md5(i::text || g), ''), 'hex') FROM generate_series(1, 600) i), NULL, g
  FROM generate_series(1, 4) g;
CREATE TABLE public.t_map (id integer PRIMARY KEY, tr text, mk text, hs text, n integer);
INSERT INTO public.t_map VALUES (1, 'abcdef', 'secret', 'hashme', 1);
-- @section stream
UPDATE public.t_inc SET n = 10 WHERE id = 1;
BEGIN;
INSERT INTO public.t_inc (id, n) VALUES (100, 1);
UPDATE public.t_inc SET note = 'later', big = 'b' WHERE id = 100;
COMMIT;
BEGIN;
UPDATE public.t_inc SET n = 20 WHERE id = 2;
UPDATE public.t_inc SET big = 'changed later' WHERE id = 2;
COMMIT;
UPDATE public.t_key SET n = 10 WHERE id = 1;
BEGIN;
INSERT INTO public.t_key (id, code) VALUES (100, 'code-100');
UPDATE public.t_key SET skip = 's', n = 5, bin = '\x0102' WHERE id = 100;
COMMIT;
BEGIN;
UPDATE public.t_key SET n = 30 WHERE id = 3;
UPDATE public.t_key SET bin = '\x03' WHERE id = 3;
COMMIT;
BEGIN;
INSERT INTO public.t_map (id, n) VALUES (10, 1);
UPDATE public.t_map SET tr = 'truncated later', mk = 'masked later', hs = 'hashed later' WHERE id = 10;
COMMIT;
