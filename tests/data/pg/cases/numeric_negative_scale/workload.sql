-- Case numeric_negative_scale (campaign pg seed 41200002, rewritten by hand): PostgreSQL 15's negative numeric scales (and a scale above
-- the precision). pgjdbc reads the typmod's scale as 16 unsigned bits, so numeric(5,-2) has scale 2046 in Debezium's
-- schema (and __debezium.source.column.scale) and values are rescaled to it; the emulator said -2.
-- @set column.propagate.source.type=public\.neg\..*
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.neg (id integer PRIMARY KEY, a numeric(5,-2) NOT NULL, b numeric(3,5), c numeric(7,-5) DEFAULT 1200000);
INSERT INTO public.neg VALUES (1, 12300, 0.00123, 3400000), (2, -9999900, -0.00999, NULL);
-- @section stream
INSERT INTO public.neg VALUES (3, 0, NULL, -500000);
UPDATE public.neg SET a = 100 WHERE id = 1;
DELETE FROM public.neg WHERE id = 2;
