-- Case type_modes: the non-default value-handling modes on the types they affect.
-- Recorded with --set decimal.handling.mode=string --set time.precision.mode=connect
--   --set interval.handling.mode=string --set hstore.handling.mode=map --set binary.handling.mode=base64
-- Phases as in ../../workload.sql: pre (snapshot), stream, incremental (+ incremental_locker).

-- @section pre
CREATE EXTENSION IF NOT EXISTS hstore;
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
-- sorts before the (empty) signal table, so the signal table is neither the first nor the last table of
-- the snapshot (Debezium does not export it; where it sorts first/last that changes the markers)
CREATE TABLE public.aa_ref (id integer PRIMARY KEY, label text);
INSERT INTO public.aa_ref VALUES (1, 'ref');

CREATE TABLE public.modes_demo (
  id             integer PRIMARY KEY,
  c_numeric_10_2 numeric(10,2),
  c_numeric      numeric,
  c_numeric_arr  numeric[],
  c_money        money,
  c_date         date,
  c_time         time,
  c_time3        time(3),
  c_timetz       timetz,
  c_timestamp    timestamp,
  c_timestamp3   timestamp(3),
  c_timestamptz  timestamptz,
  c_interval     interval,
  c_hstore       hstore,
  c_bytea        bytea
);
-- FULL identity: update/delete "before" shows every column
ALTER TABLE public.modes_demo REPLICA IDENTITY FULL;
INSERT INTO public.modes_demo VALUES
 (1, 12345.67, 3.14159265358979323846, '{1.5,-2.25,NULL}', 12.34, '2024-02-29', '13:45:30.123456',
  '13:45:30.123', '13:45:30.123456+02', '2024-02-29 13:45:30.123456', '2024-02-29 13:45:30.123',
  '2024-02-29 13:45:30.123456+02', '1 year 2 mons 3 days 04:05:06.789', 'a=>1, b=>"two"', '\xdeadbeef');
INSERT INTO public.modes_demo (id) VALUES (2);
INSERT INTO public.modes_demo VALUES
 (3, -99999999.99, 'NaN', '{}', -92233720368547758.08, '1900-01-01', '23:59:59.999999', '00:00:00',
  '23:59:59.999999-14', '1960-06-15 00:00:00.000001', '1969-12-31 23:59:59.999', '1970-01-01 00:00:00+00',
  '-1 year -2 mons +3 days -04:05:06.789', '"k"=>NULL', '\x00');
INSERT INTO public.modes_demo VALUES
 (4, 0.10, 1e-20, '{0}', 0, '1970-01-01', '00:00:00.000001', '12:00:00.5', '00:00:00+00',
  '2262-04-11 23:47:16.854775', '1900-01-01 00:00:00', '2000-01-01 00:00:00.5-08:30',
  '00:00:00', '', '\x');

-- @section stream
INSERT INTO public.modes_demo VALUES
 (10, 98765.43, 1234567890.0987654321, '{10.01}', 99.99, '2000-01-01', '08:30:15.5', '08:30:15.555',
  '08:30:15.5-05:30', '2001-09-09 01:46:40.654321', '2001-09-09 01:46:40.654', '2001-09-09 01:46:40.654321+00',
  '5 days 00:00:00.000001', 'x=>"y z", "q"=>"\"quoted\""', '\x0102fffe');
UPDATE public.modes_demo SET c_interval = '-3 mons', c_hstore = 'a=>2', c_bytea = '\xcafe', c_numeric = 42 WHERE id = 1;
UPDATE public.modes_demo SET c_numeric_10_2 = 1.00, c_time = '01:02:03' WHERE id = 2;
DELETE FROM public.modes_demo WHERE id = 3;
BEGIN;
INSERT INTO public.modes_demo (id, c_timestamptz, c_date) VALUES (11, '1999-12-31 23:59:59.999999+00', '0001-01-01');
DELETE FROM public.modes_demo WHERE id = 4;
COMMIT;

-- @section incremental_locker
SELECT 1;

-- @section incremental
-- incremental snapshot (JDBC-side converters under the same modes); chunk size 5 -> 2 chunks
INSERT INTO public.debezium_signal (id, type, data) VALUES
  ('incr-1', 'execute-snapshot', '{"data-collections": ["public.modes_demo"], "type": "incremental"}');
