-- A deliberate difference (Debezium loses data), found in session 18: a `date` read over JDBC (the snapshot's
-- scalars, array elements in the snapshot and the stream) goes through java.sql.Date, whose conversion to a
-- LocalDate drops the era and moves dates of the Julian/Gregorian gap: Debezium 3.6.3 sends 0044-03-15 BC as
-- 0044-03-15 (-703383), 0001-01-01 BC as 0001-01-01 (-719162), 4713-01-01 BC as 4713-01-01 (1001860) and the
-- proleptic 1582-10-10 as 1582-10-20 (-141422). Streamed scalars (pgoutput text) and timestamps keep their values.
-- The emulator sends every date as PostgreSQL holds it (strict expected failure).
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.bc (id integer PRIMARY KEY, d date, ts timestamp, tz timestamptz, da date[]);
INSERT INTO public.bc VALUES
 (1, '0044-03-15 BC', '0044-03-15 12:00:00 BC', '0044-03-15 12:00:00+00 BC', '{0044-03-15 BC}'),
 (2, '1582-10-10', '1582-10-10 00:00:00', '1582-10-10 00:00:00+00', '{1582-10-10}'),
 (3, '0001-01-01 BC', '0001-12-31 23:59:59.999999 BC', '0001-01-01 00:00:00+00 BC', '{0001-01-01 BC}'),
 (4, '4713-01-01 BC', '4713-01-01 00:00:00 BC', '4713-01-01 00:00:00+00 BC', NULL);
-- @section stream
INSERT INTO public.bc SELECT id + 10, d, ts, tz, da FROM public.bc;
