-- box[] elements are separated by ';' (box's typdelim: its values hold commas); the emulator split them on ','.
-- Beside it, odd types under decimal.handling.mode=double, interval.handling.mode=string,
-- binary.handling.mode=base64-url-safe, hstore.handling.mode=json, include.unknown.datatypes=true.
-- @set decimal.handling.mode=double
-- @set interval.handling.mode=string
-- @set binary.handling.mode=base64-url-safe
-- @set hstore.handling.mode=json
-- @set include.unknown.datatypes=true
-- @section pre
CREATE EXTENSION IF NOT EXISTS hstore;
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.tc (id numeric PRIMARY KEY, n numeric(10,3), m money, iv interval, h hstore, b bytea, ba bytea[], p point, pg polygon, c circle, l line, bx box[], r numrange, mr int4multirange, tsr tstzrange, x xml, j jsonb, bits bit varying(70), pl pg_lsn, tq tsquery, oid_ oid, ch "char", nm name, cid cidr, mac8 macaddr8);
INSERT INTO public.tc VALUES ('NaN', 1234567.891, '-92233720368547758.08', '-178000000 years', '"a b"=>"c\"d", "e"=>NULL', '\xfbff', '{"\\xfbff",NULL}', '(1.5,-2)', '((0,0),(1,1),(1,0))', '<(1,2),3>', '{1,-1,0}', '{(1,1),(0,0);(2,2),(1,1)}', '(,5.5]', '{[1,3),[5,7)}', '[2024-01-01 00:00+00,infinity)', '<a>&amp;</a>', '{"b": [1, 2.50, null], "a": "é"}', B'101', '16/B374D848', 'fat & (rat | !cat)', 4294967295, 'x', 'nm', '10.1.0.0/16', '08:00:2b:01:02:03:04:05');
INSERT INTO public.tc (id, n, iv) VALUES ('-Infinity', '-0.0005', '1 mon -2 days 03:04:05.678901');
INSERT INTO public.tc (id, n, iv) VALUES (1e-20, 9999999.999, 'P1Y2M3DT4H5M6.7S');
-- @section stream
INSERT INTO public.tc VALUES ('Infinity', 'NaN', '92233720368547758.07', '178000000 years', '', '\x', '{}', '(0,0)', '((0,0),(1,1))', '<(0,0),0>', '{0,1,0}', '{}', 'empty', '{}', 'empty', '<a/>', '[]', B'', '0/0', 'a', 0, '', '', '::/0', '00:00:00:00:00:00:00:00');
UPDATE public.tc SET n = 12.345, m = 0.01 WHERE id = 'NaN';
UPDATE public.tc SET id = 2 WHERE id = '-Infinity';
DELETE FROM public.tc WHERE id = 1e-20;
