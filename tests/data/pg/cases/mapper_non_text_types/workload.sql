-- Case mapper_non_text_types (diffcamp3, the open points of session 8): column.mask.with.N.chars, column.truncate.to.N.chars
-- and column.mask.hash.* over PostgreSQL types. Debezium marks every matched field (masked / truncateLength) but masks and
-- hashes only pgjdbc's character JDBC types (text, varchar, bpchar, name, "char", enums, domains over them); json, jsonb,
-- uuid, xml, inet, citext, bytea, arrays and numbers keep their values. Truncation cuts every String (json, uuid, xml,
-- inet, enum too) and bytea to N bytes, passes arrays and bits; a streamed `name` is null and stays null. A column matched
-- by a mask and a truncate rule is truncated, by a mask and a hash rule masked (ColumnMappers: truncate, mask, hash).
-- The emulator masked json/jsonb/uuid/xml/inet, hashed them, and failed on the streamed null `name` under truncation.
-- @set column.mask.with.4.chars=public.mk.m_.*,public.mk2.m_.*,public.rules.mask_trunc,public.rules.mask_hash
-- @set column.truncate.to.3.chars=public.tr.t_.*,public.rules.mask_trunc
-- @set column.mask.hash.SHA-256.with.salt.s1=public.hs.h_.*,public.rules.mask_hash
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TYPE public.mood AS ENUM ('happy', 'sad');
CREATE EXTENSION IF NOT EXISTS citext;
CREATE DOMAIN public.txt_dom AS text;
CREATE DOMAIN public.vc_dom AS varchar(30);
CREATE TABLE public.mk2 (id integer PRIMARY KEY, m_cit citext, m_dom public.txt_dom, m_vdom public.vc_dom, m_char "char", m_tsv tsvector, m_dom_nn public.txt_dom NOT NULL);
INSERT INTO public.mk2 VALUES (1, 'CiText', 'dom', 'vdom', 'q', 'a:1 b:2', 'nn'), (2, NULL, NULL, NULL, NULL, NULL, 'x');
CREATE TABLE public.mk (id integer PRIMARY KEY, m_json json, m_jsonb jsonb, m_uuid uuid, m_bytea bytea, m_text text, m_vc varchar(20), m_ch char(6), m_xml xml, m_arr text[], m_inet inet, m_int integer, m_num numeric(8,2), m_enum public.mood, m_name name, m_interval interval, m_ts timestamp, m_bool boolean, m_nn text NOT NULL DEFAULT 'd');
INSERT INTO public.mk VALUES (1, '{"a": 1}', '{"b": [1, 2]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\xdeadbeef0102', 'hello world', 'varchar value', 'ch', '<a>x</a>', '{x,y}', '10.0.0.1', 42, 12.5, 'happy', 'nm', '1 day', '2020-01-02 03:04:05', true, 'nn'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'x');
CREATE TABLE public.tr (id integer PRIMARY KEY, t_json json, t_jsonb jsonb, t_uuid uuid, t_bytea bytea, t_text text, t_vc2 varchar(2), t_vc varchar(20), t_ch char(6), t_xml xml, t_arr text[], t_inet inet, t_int integer, t_num numeric(8,2), t_bit varbit, t_enum public.mood, t_name name, t_bytea_short bytea);
INSERT INTO public.tr VALUES (1, '{"a": 1}', '{"b": [1, 2]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\xdeadbeef0102', 'hello world', 'ab', 'varchar value', 'ch', '<a>x</a>', '{xyz,long}', '10.0.0.1', 42, 12.5, B'10101', 'happy', 'a long name', '\x01'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE public.hs (id integer PRIMARY KEY, h_json json, h_jsonb jsonb, h_uuid uuid, h_bytea bytea, h_text text, h_vc varchar(20), h_ch char(6), h_xml xml, h_int integer, h_enum public.mood, h_arr text[]);
INSERT INTO public.hs VALUES (1, '{"a": 1}', '{"b": [1, 2]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\xdeadbeef0102', 'hello world', 'varchar value', 'ch', '<a>x</a>', 42, 'sad', '{p,q}'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE public.rules (id integer PRIMARY KEY, both_mask text, mask_trunc text, two_trunc text, mask_hash text, plain text);
INSERT INTO public.rules VALUES (1, 'abcdefghij', 'abcdefghij', 'abcdefghij', 'abcdefghij', 'abcdefghij');
-- @section stream
INSERT INTO public.mk VALUES (3, '[1,2,3]', '{"z": null}', '00000000-0000-0000-0000-000000000001', '\x00', '', 'v', 'c', '<b/>', '{}', '::1', -1, -0.5, 'sad', 'n2', '-2 hours', '1999-12-31 23:59:59', false, 'nn3');
UPDATE public.mk SET m_text = 'changed', m_json = '{"c": 3}' WHERE id = 1;
DELETE FROM public.mk WHERE id = 2;
INSERT INTO public.mk2 VALUES (3, 'X', 'd3', 'v3', 'z', 'c:3', 'n3');
UPDATE public.mk2 SET m_dom = 'd1' WHERE id = 1;
INSERT INTO public.tr VALUES (3, '[1,2,3]', '{"z": null}', '00000000-0000-0000-0000-000000000001', '\x00', 'äöü€x', 'v', 'v', 'c', '<b/>', '{}', '::1', -1, -0.5, B'1', 'sad', 'n2', '\x0102030405');
UPDATE public.tr SET t_text = 'changed again' WHERE id = 1;
DELETE FROM public.tr WHERE id = 2;
INSERT INTO public.hs VALUES (3, '[1,2,3]', '{"z": null}', '00000000-0000-0000-0000-000000000001', '\x00', 'äöü€x', 'v', 'c', '<b/>', -1, 'happy', '{}');
UPDATE public.hs SET h_text = 'changed' WHERE id = 1;
INSERT INTO public.rules VALUES (2, 'klmnopqrst', 'klmnopqrst', 'klmnopqrst', 'klmnopqrst', 'klmnopqrst');
UPDATE public.rules SET plain = 'p' WHERE id = 1;
