-- *finding* (session 19, the s19 `enums` draw): a domain over an enum. Debezium 3.6.3's TypeRegistry primes every
-- type at task start and reads a category-E type's labels with rs.getArray("enum_values").getArray(); a domain takes
-- its base type's category (E) but has no pg_enum rows of its own, so the task fails at start with a
-- NullPointerException, before a publication, a slot or a record; not retried. The emulator stops there too
-- (emulator.connectors.postgres.type_prime).
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TYPE public.ed_level AS ENUM ('low', 'high');
CREATE DOMAIN public.ed_level_dom AS public.ed_level;
CREATE TABLE public.ed_t (id integer PRIMARY KEY, e public.ed_level, d public.ed_level_dom);
INSERT INTO public.ed_t VALUES (1, 'low', 'high'), (2, NULL, NULL);
-- @section stream
INSERT INTO public.ed_t VALUES (3, 'high', 'low');
