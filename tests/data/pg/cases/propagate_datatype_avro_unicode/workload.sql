-- @set datatype.propagate.source.type=.+\.(varchar|numeric|int4|_text|timestamptz|bpchar|mood)
-- @set schema.name.adjustment.mode=avro_unicode
-- @set field.name.adjustment.mode=avro_unicode
-- @section pre
CREATE EXTENSION IF NOT EXISTS hstore;
CREATE TYPE public.mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public."prop-types" (
  id integer PRIMARY KEY, "1st col" smallint, "with.dot" bigint, c_num numeric(10,2), c_numv numeric, c_real real, c_dbl double precision,
  c_bool boolean, c_char char(5), c_vc varchar(20), c_text text, c_bytea bytea, c_date date, c_time time(3), c_ts timestamp, c_tstz timestamptz(2),
  c_iv interval, c_uuid uuid, c_json json, c_jsonb jsonb, c_inet inet, c_money money, c_bit bit(3), c_vbit varbit(8), c_range int4range,
  c_arr integer[], c_tarr text[], c_mood mood, c_hs hstore, c_xml xml, c_point point, c_oid oid, "Größe" text
);
INSERT INTO public."prop-types" (id, c_num, c_vc, "Größe") VALUES (1, 1.5, 'x', 'g');
-- @section stream
INSERT INTO public."prop-types" (id, c_num, c_vc) VALUES (2, 2.5, 'y');
-- @quiet
ALTER TABLE public."prop-types" ADD COLUMN c_new varchar(30), ALTER COLUMN c_num TYPE numeric(12,4);
INSERT INTO public."prop-types" (id, c_num, c_vc, c_new) VALUES (3, 3.5, 'z', 'new');
UPDATE public."prop-types" SET c_vc = 'w' WHERE id = 1;
