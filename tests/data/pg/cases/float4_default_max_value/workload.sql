-- *finding* (session 20, campaign seed 44729004, an s0_types draw): a real column's default 3.4028235e38
-- (Float.MAX_VALUE) in the schema. Debezium: "default": 3.4028235E38 (Float.parseFloat of pg_get_expr's text). The
-- emulator gave no default: its Float.toString digit search packed a shorter candidate (3.403e38) that rounds past
-- Float.MAX_VALUE, and the OverflowError dropped the default.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.fmax (id integer PRIMARY KEY, hi real DEFAULT 3.4028235e38, lo real DEFAULT -3.4028235e38, near real DEFAULT 3.4028e38, v text);
INSERT INTO public.fmax (id, v) VALUES (1, 'one');
INSERT INTO public.fmax VALUES (2, 3.4028235e38, -3.4028235e38, 1.5, 'two');
-- @section stream
INSERT INTO public.fmax (id, v) VALUES (3, 'three');
UPDATE public.fmax SET v = 'uno' WHERE id = 1;
