-- Partitions (publish.via.partition.root=false): list and hash partitioned tables, a default partition, a
-- partition attached with rows and one detached mid-stream, a sub-partitioned partition.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.pl (id integer, region text NOT NULL, v text, PRIMARY KEY (id, region)) PARTITION BY LIST (region);
CREATE TABLE public.pl_eu PARTITION OF public.pl FOR VALUES IN ('eu');
CREATE TABLE public.pl_us PARTITION OF public.pl FOR VALUES IN ('us') PARTITION BY RANGE (id);
CREATE TABLE public.pl_us_lo PARTITION OF public.pl_us FOR VALUES FROM (0) TO (100);
CREATE TABLE public.pl_us_hi PARTITION OF public.pl_us FOR VALUES FROM (100) TO (1000);
CREATE TABLE public.pl_other PARTITION OF public.pl DEFAULT;
CREATE TABLE public.ph (id integer PRIMARY KEY, v text) PARTITION BY HASH (id);
CREATE TABLE public.ph_0 PARTITION OF public.ph FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE public.ph_1 PARTITION OF public.ph FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO public.pl VALUES (1, 'eu', 'a'), (2, 'us', 'b'), (200, 'us', 'c'), (3, 'apac', 'd');
INSERT INTO public.ph SELECT i, 'h' || i FROM generate_series(1, 4) i;
-- @section stream
INSERT INTO public.pl VALUES (4, 'eu', 'e'), (150, 'us', 'f'), (5, 'latam', 'g');
UPDATE public.pl SET region = 'eu' WHERE id = 3;
UPDATE public.ph SET v = 'h2x' WHERE id = 2;
DELETE FROM public.ph WHERE id = 3;
-- @quiet
CREATE TABLE public.pl_asia (id integer, region text NOT NULL, v text, PRIMARY KEY (id, region));
INSERT INTO public.pl_asia VALUES (7, 'asia', 'pre');
ALTER TABLE public.pl ATTACH PARTITION public.pl_asia FOR VALUES IN ('asia');
INSERT INTO public.pl VALUES (8, 'asia', 'post');
-- @quiet
ALTER TABLE public.pl DETACH PARTITION public.pl_eu;
INSERT INTO public.pl_eu VALUES (9, 'eu', 'detached');
UPDATE public.pl_eu SET v = 'still captured' WHERE id = 1;
