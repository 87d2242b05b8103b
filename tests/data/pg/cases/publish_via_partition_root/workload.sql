-- @set publish.via.partition.root=true
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.m (id integer, k integer NOT NULL, v text, PRIMARY KEY (id, k)) PARTITION BY RANGE (k);
CREATE TABLE public.m_a PARTITION OF public.m FOR VALUES FROM (0) TO (100);
CREATE TABLE public.m_b PARTITION OF public.m FOR VALUES FROM (100) TO (200);
CREATE TABLE public.plain (id integer PRIMARY KEY);
INSERT INTO public.m VALUES (1, 5, 'x'), (2, 150, 'y');
INSERT INTO public.plain VALUES (1);
-- @section stream
INSERT INTO public.m VALUES (3, 7, 'z'), (4, 170, 'q');
UPDATE public.m SET v = 'w' WHERE id = 2;
UPDATE public.m SET k = 120 WHERE id = 1;
DELETE FROM public.m WHERE id = 3;
INSERT INTO public.plain VALUES (2);
-- @quiet
CREATE TABLE public.m_c PARTITION OF public.m FOR VALUES FROM (200) TO (300);
INSERT INTO public.m VALUES (5, 250, 'c');
-- @section incremental
INSERT INTO public.debezium_signal (id, type, data) VALUES ('incr-1', 'execute-snapshot', '{"data-collections": ["public.m"], "type": "incremental"}');
