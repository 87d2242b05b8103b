-- *finding* (campaign seed 44703002): column.propagate.source.type on domains over arrays. Debezium's length and
-- scale of a domain over an array type are the element type's (pgjdbc's precision of an array is its element's;
-- the domain takes its base type's): integer 10, numeric(7,2) 7/2, varchar(12) 12, timestamp(3) 26/3, a domain over
-- such a domain, bigint with a CHECK; the emulator said 2147483647. A domain over text[] stays 2147483647. A plain
-- array of a domain (pa) and a domain over one (pda) are left out of the records by both ("No converter found").
-- In the snapshot and in the stream.
-- @set column.propagate.source.type=.*
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE DOMAIN public.d_int_arr AS integer[];
CREATE DOMAIN public.d_num_arr AS numeric(7,2)[];
CREATE DOMAIN public.d_vc_arr AS varchar(12)[];
CREATE DOMAIN public.d_ts_arr AS timestamp(3)[];
CREATE DOMAIN public.d_int_arr2 AS public.d_int_arr;
CREATE DOMAIN public.d_pos AS integer CHECK (VALUE > 0);
CREATE DOMAIN public.d_pos_arr AS public.d_pos[];
CREATE DOMAIN public.d_text_arr AS text[];
CREATE DOMAIN public.d_i8_arr AS bigint[] CHECK (cardinality(VALUE) < 5);
CREATE TABLE public.doms (id integer PRIMARY KEY, ia public.d_int_arr, na public.d_num_arr, va public.d_vc_arr, tsa public.d_ts_arr, ia2 public.d_int_arr2, pa public.d_pos[], pda public.d_pos_arr, ta public.d_text_arr, i8a public.d_i8_arr);
INSERT INTO public.doms VALUES (1, '{1,2}', '{1.50,2.25}', '{a,bc}', '{"2020-01-02 03:04:05.678"}', '{3}', '{4,5}', '{6}', '{x}', '{7,8}'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- @section stream
INSERT INTO public.doms VALUES (3, '{9}', '{3.75}', '{d}', '{"2021-01-02 03:04:05.1"}', '{10}', '{11}', '{12}', '{y}', '{13}');
UPDATE public.doms SET ia = '{}' WHERE id = 1;
DELETE FROM public.doms WHERE id = 2;
