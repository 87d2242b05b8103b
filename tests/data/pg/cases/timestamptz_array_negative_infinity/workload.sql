-- *finding* (session 20, checking far-future/infinite/BC timestamps in a snapshot): a timestamptz[] element
-- '-infinity' (snapshot and stream: array elements are pgjdbc PgArray objects) is pgjdbc's DATE_NEGATIVE_INFINITY
-- (-9223372036832400000 ms), which Debezium prints through a calendar that drops the era:
-- "+292269055-12-02T23:00:00.000000Z" (timestamptz(3)[]: ".000Z"). The emulator printed "-infinity". 'infinity'
-- stays "infinity"; timestamp[] infinities and far-future elements matched.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.tzarr (id integer PRIMARY KEY, tza timestamptz[], tz3a timestamptz(3)[], tsa timestamp[]);
INSERT INTO public.tzarr VALUES (1, ARRAY['-infinity', 'infinity', '10000-01-01 00:00:00+00']::timestamptz[], ARRAY['-infinity', '2024-01-01 00:00:00.5+00']::timestamptz(3)[], ARRAY['infinity', '-infinity', '294276-12-31 23:59:59.999999']::timestamp[]);
INSERT INTO public.tzarr VALUES (2, ARRAY['-infinity']::timestamptz[], NULL, ARRAY['12345-06-07 08:09:10.5']::timestamp[]);
-- @section stream
INSERT INTO public.tzarr VALUES (3, ARRAY['-infinity', '20000-01-01 00:00:00-08']::timestamptz[], ARRAY['-infinity']::timestamptz(3)[], ARRAY['-infinity']::timestamp[]);
UPDATE public.tzarr SET tza = ARRAY['infinity', '-infinity']::timestamptz[] WHERE id = 2;
