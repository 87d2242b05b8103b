-- @set time.precision.mode=microseconds
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.tt (
  id integer PRIMARY KEY, d date, t time, t0 time(0), t3 time(3), t6 time(6), ttz timetz, ttz3 timetz(3),
  ts timestamp, ts0 timestamp(0), ts3 timestamp(3), tstz timestamptz, tstz3 timestamptz(3), iv interval,
  da date[], tsa timestamp[], tstza timestamptz[], ta time[],
  dn date NOT NULL DEFAULT '2020-01-01', tsn timestamp NOT NULL DEFAULT '2020-01-01 10:00:00', tn time NOT NULL DEFAULT '10:00:00'
);
INSERT INTO public.tt VALUES
 (1, '2024-02-29', '13:45:30.123456', '13:45:30', '13:45:30.123', '13:45:30.123456', '13:45:30.123456+02', '13:45:30.123+02',
  '2024-02-29 13:45:30.123456', '2024-02-29 13:45:30', '2024-02-29 13:45:30.123', '2024-02-29 13:45:30.123456+02', '2024-02-29 13:45:30.123+02', '1 day 02:03:04.5',
  '{2024-01-01,1970-01-01}', '{"2024-01-01 10:00:00.5"}', '{"2024-01-01 10:00:00.5+01"}', '{10:00:00.25}', DEFAULT, DEFAULT, DEFAULT),
 (2, '0001-01-01', '00:00:00', '23:59:59', '00:00:00.001', '23:59:59.999999', '00:00:00+00', '23:59:59.999-14',
  '1960-06-15 00:00:00.000001', '0001-01-01 00:00:00', '1969-12-31 23:59:59.999', '1970-01-01 00:00:00+00', '1900-01-01 00:00:00.001-08:30', '-1 year -2 mons +3 days',
  '{}', '{}', '{}', '{}', '1969-12-31', '1969-12-31 23:59:59.999999', '24:00:00'),
 (3, 'infinity', '24:00:00', NULL, NULL, NULL, NULL, NULL, 'infinity', '-infinity', NULL, '-infinity', 'infinity', NULL, NULL, NULL, NULL, NULL, '-infinity', 'infinity', '00:00:00.000001'),
 (4, '2262-04-12', '12:00:00.5', NULL, NULL, NULL, '12:00:00.5+05:30', NULL, '2262-04-11 23:47:16.854775', NULL, NULL, '2262-04-11 23:47:16.854775+00', NULL, '00:00:00.000001', NULL, NULL, NULL, NULL, '9999-12-31', '1900-01-01 00:00:00', '12:34:56.789012');
ALTER TABLE public.tt REPLICA IDENTITY DEFAULT;
-- @section stream
INSERT INTO public.tt SELECT id + 10, d, t, t0, t3, t6, ttz, ttz3, ts, ts0, ts3, tstz, tstz3, iv, da, tsa, tstza, ta, dn, tsn, tn FROM public.tt;
UPDATE public.tt SET t = '01:02:03.456789', ts = '2001-09-09 01:46:40.654321' WHERE id = 1;
DELETE FROM public.tt WHERE id = 2;
-- @section incremental
INSERT INTO public.debezium_signal (id, type, data) VALUES ('incr-1', 'execute-snapshot', '{"data-collections": ["public.tt"], "type": "incremental"}');
