-- NOT NULL date/time/timetz/timestamp(tz)/interval and array columns (no defaults) missing from old-key tuples: the converters' fallbacks in `before` of deletes and key updates; timetz[] elements (java.sql.Time: whole seconds)
-- @set time.precision.mode=isostring
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.ft (
  id integer PRIMARY KEY, d date NOT NULL, t time NOT NULL, t0 time(0) NOT NULL, t3 time(3) NOT NULL,
  ttz timetz NOT NULL, ttz0 timetz(0) NOT NULL, ttz3 timetz(3) NOT NULL,
  ts timestamp NOT NULL, ts0 timestamp(0) NOT NULL, ts3 timestamp(3) NOT NULL,
  tstz0 timestamptz(0) NOT NULL, tstz3 timestamptz(3) NOT NULL, iv interval NOT NULL, iv0 interval(0) NOT NULL,
  da date[] NOT NULL, ta time[] NOT NULL, tza timetz[] NOT NULL, tsa timestamp[] NOT NULL
);
INSERT INTO public.ft VALUES
 (1, '2024-02-29', '13:45:30.123456', '13:45:30', '13:45:30.123', '13:45:30.123456+02', '13:45:30+02', '13:45:30.123-05:30',
  '2024-02-29 13:45:30.123456', '2024-02-29 13:45:30', '2024-02-29 13:45:30.123', '2024-02-29 13:45:30+02', '2024-02-29 13:45:30.123+02',
  '1 day 02:03:04.5', '3 hours', '{2024-01-01}', '{10:00:00.25}', '{10:00:00.25+01}', '{"2024-01-01 10:00:00.5"}'),
 (2, '1969-12-31', '23:59:59.999999', '00:00:01', '00:00:00.001', '00:00:00+00', '23:59:59-14', '12:00:00.5+14',
  '1969-12-31 23:59:59.999999', '0001-01-01 00:00:00', '1970-01-01 00:00:00.001', '1970-01-01 00:00:00+00', '1999-12-31 23:59:59.999-08',
  '-1 year', '00:00:00', '{}', '{}', '{}', '{}'),
 (3, '2000-01-01', '00:00:00', '12:00:00', '12:00:00.5', '12:00:00+05:30', '12:00:00+05:30', '12:00:00+05:30',
  '2000-01-01 00:00:00', '2000-01-01 00:00:00', '2000-01-01 00:00:00', '2000-01-01 00:00:00+00', '2000-01-01 00:00:00+00',
  '1 mon', '1 sec', '{1970-01-01}', '{00:00:00}', '{00:00:00+00}', '{"1970-01-01 00:00:00"}');
-- @section stream
INSERT INTO public.ft SELECT id + 10, d, t, t0, t3, ttz, ttz0, ttz3, ts, ts0, ts3, tstz0, tstz3, iv, iv0, da, ta, tza, tsa FROM public.ft;
DELETE FROM public.ft WHERE id = 1;
UPDATE public.ft SET id = 22 WHERE id = 2;
BEGIN;
DELETE FROM public.ft WHERE id = 13;
UPDATE public.ft SET id = 33, t = '01:02:03' WHERE id = 3;
COMMIT;
