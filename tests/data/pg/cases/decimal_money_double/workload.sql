-- decimal.handling.mode=double with numeric edge values (NaN, huge, tiny), money with
-- money.fraction.digits=0, numeric arrays; stream and incremental snapshot.
-- @set decimal.handling.mode=double
-- @set money.fraction.digits=0
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.dm (id integer PRIMARY KEY, n numeric, n2 numeric(10,2), n0 numeric(5,0), m money, na numeric[], r real, d double precision,
  nn numeric(6,3) NOT NULL DEFAULT 1.5);
INSERT INTO public.dm VALUES (1, 'NaN', 12345678.91, 99999, 12.34, '{1.5,NaN}', 'NaN', '-Infinity', DEFAULT),
  (2, 123456789012345678901234567890.123456789, -0.01, -99999, -92233720368547758.08, '{}', 3.4028235e38, 4.9e-324, -999.999),
  (3, 1e-30, 0, 0, 0, NULL, '-Infinity', 'Infinity', 0);
-- @section stream
INSERT INTO public.dm VALUES (4, -1e30, 1.1, 1, 1.99, '{0.1,0.2}', 1.1, 1.1, 2.25);
UPDATE public.dm SET n = 'NaN', m = 5 WHERE id = 2;
DELETE FROM public.dm WHERE id = 3;
-- @section incremental
INSERT INTO public.debezium_signal (id, type, data) VALUES ('incr-1', 'execute-snapshot', '{"data-collections": ["public.dm"], "type": "incremental"}');
