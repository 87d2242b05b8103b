-- post.processors beside column mappers: Debezium converts a value it reads again with the column's plain
-- converter (ValueConverterProvider), without column.truncate.to.N.chars / column.mask.with.N.chars, so an
-- INSERT whose NULLs its transaction fills shows the whole text of a truncated column; a masked column prints the
-- mask for NULL (not read again), a hashed one its hash of the value.
-- @set post.processors=r
-- @set r.type=io.debezium.processors.reselect.ReselectColumnsPostProcessor
-- @set column.truncate.to.3.chars=public.t.tr
-- @set column.mask.with.4.chars=public.t.mk
-- @set column.mask.hash.SHA-256.with.salt.s1=public.t.hs
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t (id integer PRIMARY KEY, tr text, mk text, hs text, n integer);
INSERT INTO public.t VALUES (1, 'abcdef', 'secret', 'hashme', 1);
-- @section stream
BEGIN;
INSERT INTO public.t (id, n) VALUES (10, 1);
UPDATE public.t SET tr = 'truncated later', mk = 'masked later', hs = 'hashed later' WHERE id = 10;
COMMIT;
