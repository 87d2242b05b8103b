-- (session 24; campaign seed 44794001) column.mask.hash on a `"char"` column: Debezium's MaskStrings hashes the value
-- and cuts the hash to the Column's length (its TruncatingValueConverter, column.length() > 0), which for `"char"` is
-- 1: the first character of the hash. The emulator sent the whole hash. varchar(3) and char(2) beside it (cut to 3
-- and 2 already), text (2147483647: the whole hash).
-- @set column.mask.hash.SHA-256.with.salt.CzQMA0cB5K=public\.ch\.c_.*
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.ch (id integer PRIMARY KEY, c_char "char", c_vc varchar(3), c_bp char(2), c_text text);
INSERT INTO public.ch VALUES (1, 'b', 'abc', 'xy', 'long text'), (2, NULL, NULL, NULL, NULL), (3, '2', 'z', 'q', '');
-- @section stream
INSERT INTO public.ch VALUES (10, 'b', 'ab', 'x', 't'), (11, '7', 'zz', 'yy', 'u');
UPDATE public.ch SET c_char = 'c' WHERE id = 1;
DELETE FROM public.ch WHERE id = 3;
