-- *finding* (session 19, campaign seed 44722005, the s19 `eras` draw): a streamed timestamp past Long.MAX
-- microseconds (PostgreSQL's last years, up to 294276-12-31) as a MicroTimestamp: Debezium's
-- Conversions.toEpochMicros saturates the seconds at Long.MAX (TimeUnit.SECONDS.toMicros) and adding the
-- micro-of-second wraps: 294276-12-31 23:59:59.999999 is -9223372036853775810; 294247-01-10 04:00:54.775807 is
-- Long.MAX, .775808 wraps to Long.MIN, 04:00:55 saturates to Long.MAX. The emulator printed the exact number, past
-- the int64 range.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.tsmax (id integer PRIMARY KEY, ts timestamp, ts3 timestamp(3));
ALTER TABLE public.tsmax REPLICA IDENTITY FULL;
INSERT INTO public.tsmax VALUES (1, '2024-01-01 00:00:00', '2024-01-01 00:00:00');
-- @section stream
INSERT INTO public.tsmax VALUES (2, '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999');
INSERT INTO public.tsmax VALUES (3, '294247-01-10 04:00:54.775807', '294247-01-10 04:00:54.775');
INSERT INTO public.tsmax VALUES (4, '294247-01-10 04:00:54.775808', '294247-01-10 04:00:54.776');
INSERT INTO public.tsmax VALUES (5, '294247-01-10 04:00:55', '294247-01-10 04:00:55');
INSERT INTO public.tsmax VALUES (6, '294247-01-10 04:00:53.999999', NULL);
UPDATE public.tsmax SET ts = '294276-01-01 00:00:00.5' WHERE id = 2;
DELETE FROM public.tsmax WHERE id = 4;
