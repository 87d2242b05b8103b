-- A deliberate difference (session 20): timestamp[] / timestamptz[] elements before 1582-10-15, in the snapshot
-- and in the stream (array elements are pgjdbc PgArray objects, java.sql.Timestamp through the hybrid Julian
-- calendar). Debezium's timestamp[] element '0044-03-15 12:00:00.5 BC' is -0043-03-13T12:00:00.5 (the Julian date
-- read as Gregorian: two days off), '1582-10-10' is 1582-10-20, '0001-01-01 BC' -0001-12-30; its timestamptz[]
-- elements drop the era ('0044-03-15 ... BC' as 0044-03-15, '0001-01-01 BC' as 0001-01-01) and move the gap too:
-- values replaced, as the deliberate date_bc_jdbc_lost. The emulator sends what PostgreSQL holds (strict
-- expected failure). The rest matched: infinities (a timestamptz[] -infinity after the fix of case
-- timestamptz_array_negative_infinity), years past 9999 up to 294276, dates infinity/-infinity/10000/5874897, a
-- BC timestamp(6) scalar.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.dsnap (id integer PRIMARY KEY, d date, tsa timestamp[], tza timestamptz[], ts6 timestamp(6));
INSERT INTO public.dsnap VALUES (1, 'infinity', ARRAY['infinity','-infinity']::timestamp[], ARRAY['infinity','-infinity']::timestamptz[], '2024-01-01');
INSERT INTO public.dsnap VALUES (2, '-infinity', ARRAY['10000-01-01 00:00:00','0044-03-15 12:00:00.5 BC']::timestamp[], ARRAY['10000-01-01 00:00:00+00','0044-03-15 12:00:00.5+00 BC']::timestamptz[], '1582-10-04 23:59:59.999999');
INSERT INTO public.dsnap VALUES (3, '10000-01-01', ARRAY['1582-10-10 00:00:00','294276-12-31 23:59:59.999999']::timestamp[], ARRAY['1582-10-10 00:00:00+00','294276-12-31 23:59:59.999999+00']::timestamptz[], '1000-06-01 12:00:00');
INSERT INTO public.dsnap VALUES (4, '5874897-12-31', ARRAY['0001-01-01 00:00:00 BC']::timestamp[], ARRAY['0001-01-01 00:00:00+00 BC']::timestamptz[], '0500-02-28 00:00:00');
INSERT INTO public.dsnap VALUES (5, '1582-10-15', NULL, NULL, '1970-01-01 00:00:00 BC');
-- @section stream
INSERT INTO public.dsnap VALUES (101, 'infinity', ARRAY['infinity','-infinity']::timestamp[], ARRAY['infinity','-infinity']::timestamptz[], '2024-01-01');
INSERT INTO public.dsnap VALUES (102, '-infinity', ARRAY['10000-01-01 00:00:00','0044-03-15 12:00:00.5 BC']::timestamp[], ARRAY['10000-01-01 00:00:00+00','0044-03-15 12:00:00.5+00 BC']::timestamptz[], '1582-10-04 23:59:59.999999');
INSERT INTO public.dsnap VALUES (103, '10000-01-01', ARRAY['1582-10-10 00:00:00','294276-12-31 23:59:59.999999']::timestamp[], ARRAY['1582-10-10 00:00:00+00','294276-12-31 23:59:59.999999+00']::timestamptz[], '1000-06-01 12:00:00');
INSERT INTO public.dsnap VALUES (104, '5874897-12-31', ARRAY['0001-01-01 00:00:00 BC']::timestamp[], ARRAY['0001-01-01 00:00:00+00 BC']::timestamptz[], '0500-02-28 00:00:00');
