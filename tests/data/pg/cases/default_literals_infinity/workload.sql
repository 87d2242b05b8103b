-- Column defaults of many literal forms (adaptive time precision). 'infinity' / '-infinity' and 24:00 defaults are read by
-- pgjdbc's TimestampUtils as LocalDateTime.MAX/MIN and LocalTime.MAX: a timestamp 'infinity' default is the
-- MicroTimestamp of LocalDateTime.MAX (saturated, wrapped: -9223372036853775810), a date '-infinity' the int cast of
-- LocalDate.MIN's epoch day (-170999002), a time '24:00' 86399999999; the emulator printed none / its row forms.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TYPE mood AS ENUM ('sad', 'ok');
CREATE TABLE public.df (id integer PRIMARY KEY,
  a timestamp DEFAULT 'infinity', b timestamptz DEFAULT '2024-01-01 10:00+05', c timetz DEFAULT '12:00+02', d time(2) DEFAULT '23:59:59.995',
  e double precision DEFAULT -1.5e10, f real DEFAULT 1.17549435E-38, g float8 DEFAULT 'Infinity', h numeric DEFAULT 'NaN', i numeric(7,2) DEFAULT -0.5,
  j bit(3) DEFAULT B'101', k varbit DEFAULT B'1', l bytea DEFAULT E'\\x01ff', m interval DEFAULT '1 day -00:00:01', n mood DEFAULT 'ok'::mood,
  o varchar(5) DEFAULT 'x'::character varying, p money DEFAULT 12.34, q json DEFAULT '{"a": 1}', r jsonb DEFAULT '[1, "x"]', s uuid DEFAULT '6f1e2d3c-0000-4000-8000-000000000001',
  t date DEFAULT '-infinity', u smallint DEFAULT -(3), v bigint DEFAULT 9223372036854775807, w boolean DEFAULT 't', x char(3) DEFAULT 'ab', y text DEFAULT E'multi\nline ''q''',
  z inet DEFAULT '10.0.0.1/8', aa int[] DEFAULT '{1,2}', ab timestamp(0) DEFAULT '2020-02-29 23:59:59.6', ac date DEFAULT '2000-01-01'::date + 1, ad numeric(5,0) DEFAULT 1e4, ae xml DEFAULT '<a/>');
INSERT INTO public.df (id) VALUES (1);
INSERT INTO public.df VALUES (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- @section stream
INSERT INTO public.df (id) VALUES (3);
INSERT INTO public.df VALUES (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- @quiet
ALTER TABLE public.df ADD COLUMN af timestamptz DEFAULT '-infinity', ADD COLUMN ag real DEFAULT 'NaN', ADD COLUMN ah numeric(6,3) DEFAULT 'NaN', ADD COLUMN ai time DEFAULT '24:00';
INSERT INTO public.df (id, af) VALUES (5, NULL);
