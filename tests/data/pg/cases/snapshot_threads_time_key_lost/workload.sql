-- A deliberate difference (Debezium loses data), found by reading Debezium's chunk binding (session 18): with
-- snapshot.max.threads=2 Debezium bounds a chunked table's last chunk by its maximum key read with pgjdbc's
-- getObject, which makes a `time` a java.sql.Time (milliseconds) and a `timetz` a java.sql.Time too (its offset and
-- microseconds gone): `k <= '10:00:00.123'` leaves out the row whose key is 10:00:00.123456, and the timetz table's
-- greatest key (23:59:59.999999-03) is lost the same way. Never read, never sent. A `timestamp` key (a
-- java.sql.Timestamp keeps microseconds) loses nothing. The emulator reads every row (strict expected failure).
-- @set snapshot.max.threads=2
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.tk (k time PRIMARY KEY, v text);
INSERT INTO public.tk VALUES ('09:00:00', 'a'), ('10:00:00.123456', 'max'), ('08:30:00.5', 'b');
CREATE TABLE public.tz (k timetz PRIMARY KEY, v text);
INSERT INTO public.tz VALUES ('09:00:00+02', 'a'), ('23:59:59.999999-03', 'max'), ('01:00:00.25+05:30', 'b');
CREATE TABLE public.ts (k timestamp PRIMARY KEY, v text);
INSERT INTO public.ts VALUES ('2024-01-01 00:00:00.000001', 'a'), ('2024-06-01 12:34:56.789012', 'max'), ('1500-03-01 00:00:00', 'old');
-- @section stream
INSERT INTO public.tk VALUES ('11:00:00', 'c');
