-- *finding* (session 19, beside enum_domain_type_registry_stops): an enum without labels, in a schema the filters
-- leave out and used by no table. Debezium 3.6.3's TypeRegistry primes every type of the database at task start:
-- a category-E type without pg_enum rows has a null "enum_values" and the task fails with a NullPointerException
-- before anything is created or written. The emulator stops there too.
-- @set schema.include.list=public
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE SCHEMA ee_other;
CREATE TYPE ee_other.nothing AS ENUM ();
CREATE TABLE public.ee_t (id integer PRIMARY KEY, v text);
INSERT INTO public.ee_t VALUES (1, 'one');
-- @section stream
INSERT INTO public.ee_t VALUES (2, 'two');
