-- @set decimal.handling.mode=string
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
-- @scenario a
CREATE TABLE public.a (id int PRIMARY KEY, n numeric(10,2));
INSERT INTO public.a VALUES (1, 1.5);
-- @scenario part
CREATE TABLE public.p (id int, k int, v text, PRIMARY KEY (id, k)) PARTITION BY RANGE (k);
CREATE TABLE public.p_1 PARTITION OF public.p FOR VALUES FROM (0) TO (100);
CREATE TABLE public.p_2 PARTITION OF public.p FOR VALUES FROM (100) TO (200);
INSERT INTO public.p VALUES (1, 5, 'x'), (2, 150, 'y');
-- @section stream
-- @scenario a
INSERT INTO public.a VALUES (2, 2.5);
ALTER TABLE public.a ADD COLUMN extra text;
INSERT INTO public.a VALUES (3, 3.5, 'e');
ALTER TABLE public.a DROP COLUMN extra;
INSERT INTO public.a VALUES (4, 4.5);
-- @scenario part
INSERT INTO public.p VALUES (3, 7, 'z');
UPDATE public.p SET v = 'w' WHERE id = 2;
