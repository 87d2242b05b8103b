-- The same infinity / 24:00 defaults under time.precision.mode=isostring: +999999999-12-31T23:59:59.999999999Z,
-- -999999999-01-01T00:00:00Z, +999999999-12-31Z, 23:59:59.999999999Z (timestamptz: no default). Also recorded, not kept:
-- adaptive, connect, nanoseconds, microseconds (all match).
-- @set time.precision.mode=isostring
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.di (id integer PRIMARY KEY, tsp timestamp DEFAULT 'infinity', tsn timestamp DEFAULT '-infinity', ts3 timestamp(3) DEFAULT 'infinity',
  dp date DEFAULT 'infinity', dn date DEFAULT '-infinity', t24 time DEFAULT '24:00', t243 time(3) DEFAULT '24:00:00', tz24 timetz DEFAULT '24:00:00+00', tzp timestamptz DEFAULT 'infinity');
INSERT INTO public.di (id) VALUES (1);
-- @section stream
INSERT INTO public.di (id) VALUES (2);
