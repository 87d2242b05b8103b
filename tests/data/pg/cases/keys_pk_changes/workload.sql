-- Primary keys added, replaced and dropped mid-stream, with replica identity changes; each step waits
-- for quiet so the catalog read at the Relation message is that step's.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.kp (id integer NOT NULL, k integer NOT NULL, v text);
ALTER TABLE public.kp REPLICA IDENTITY FULL;
INSERT INTO public.kp VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 3, 'c');
-- @section stream
INSERT INTO public.kp VALUES (4, 4, 'd');
UPDATE public.kp SET v = 'a1' WHERE id = 1;
DELETE FROM public.kp WHERE id = 4;
-- @quiet
ALTER TABLE public.kp ADD PRIMARY KEY (id);
INSERT INTO public.kp VALUES (5, 5, 'e');
UPDATE public.kp SET v = 'b1' WHERE id = 2;
UPDATE public.kp SET id = 20 WHERE id = 2;
DELETE FROM public.kp WHERE id = 3;
-- @quiet
ALTER TABLE public.kp REPLICA IDENTITY DEFAULT;
UPDATE public.kp SET v = 'e1' WHERE id = 5;
UPDATE public.kp SET id = 50 WHERE id = 5;
DELETE FROM public.kp WHERE id = 50;
-- @quiet
ALTER TABLE public.kp DROP CONSTRAINT kp_pkey, ADD PRIMARY KEY (id, k);
INSERT INTO public.kp VALUES (6, 6, 'f');
UPDATE public.kp SET k = 60 WHERE id = 6;
DELETE FROM public.kp WHERE id = 1;
-- @quiet
ALTER TABLE public.kp DROP CONSTRAINT kp_pkey;
ALTER TABLE public.kp REPLICA IDENTITY FULL;
INSERT INTO public.kp VALUES (7, 7, 'g');
UPDATE public.kp SET v = 'g1' WHERE id = 7;
DELETE FROM public.kp WHERE id = 7;
-- @quiet
CREATE UNIQUE INDEX kp_uq ON public.kp (k);
ALTER TABLE public.kp REPLICA IDENTITY USING INDEX kp_uq;
INSERT INTO public.kp VALUES (8, 8, 'h');
UPDATE public.kp SET v = 'h1' WHERE k = 8;
UPDATE public.kp SET k = 80 WHERE k = 8;
DELETE FROM public.kp WHERE k = 80;
