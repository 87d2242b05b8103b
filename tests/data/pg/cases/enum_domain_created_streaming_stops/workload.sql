-- *finding* (session 19, beside enum_domain_type_registry_stops): a domain over an enum created while streaming and
-- used by a table. Debezium's decoder reads a Relation message's columns from the catalog (any table's, before the
-- filters) and looks the unknown type up: TypeRegistry.createTypeBuilderFromResultSet fails on its null
-- "enum_values" (NullPointerException), "Producer failure", the connector stops; the BEGIN record of the
-- transaction comes first. The emulator went on; it now stops at that Relation message too.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.sd_t (id integer PRIMARY KEY, v text);
INSERT INTO public.sd_t VALUES (1, 'one');
-- @section stream
CREATE TYPE public.sd_e AS ENUM ('a', 'b');
CREATE DOMAIN public.sd_d AS public.sd_e;
CREATE TABLE public.sd_u (id integer PRIMARY KEY, x public.sd_d);
INSERT INTO public.sd_t VALUES (2, 'two');
-- @quiet
INSERT INTO public.sd_u VALUES (1, 'a');
-- @quiet
INSERT INTO public.sd_t VALUES (3, 'three');
