-- *finding* (campaign seed 44710002): column.propagate.source.type on intervals. Debezium's scale of an interval
-- column is pgjdbc's TypeInfoCache.getScale: 6 without a typmod, else typmod & 0xFFFF, the fractional precision:
-- interval(3) 3, interval(0) 0, interval day to second(2) 2, and a field range without a precision (year to month,
-- hour) 65535 (INTERVAL_FULL_PRECISION); the emulator said 6 for each. The length is 49 for all. In the snapshot and
-- in the stream (the Relation message's typmod).
-- @set column.propagate.source.type=.*
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.ivs (id integer PRIMARY KEY, iv interval, iv3 interval(3), iv0 interval(0), ym interval year to month NOT NULL, h interval hour, ds2 interval day to second(2), ms interval minute to second, ivs interval[]);
INSERT INTO public.ivs VALUES (1, '1 day', '1.234 s', '2 s', '1 year 2 months', '3 hours', '1 day 00:00:01.25', '00:01:02.5', '{1 day}'), (2, NULL, NULL, NULL, '0', NULL, NULL, NULL, NULL);
-- @section stream
INSERT INTO public.ivs VALUES (3, '-1 day', '0.5 s', '1 s', '3 months', '1 hour', '00:00:00.01', '00:00:59', '{2 days,3 hours}');
UPDATE public.ivs SET iv = '2 days' WHERE id = 1;
DELETE FROM public.ivs WHERE id = 2;
