-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.d (id int PRIMARY KEY, a int DEFAULT 5, b text DEFAULT 'x', c int);
INSERT INTO public.d VALUES (1, NULL, NULL, NULL), (2, 1, 'y', 2);
-- @section stream
INSERT INTO public.d VALUES (3, NULL, NULL, NULL);
UPDATE public.d SET a = NULL, b = NULL WHERE id = 2;
DELETE FROM public.d WHERE id = 1;
