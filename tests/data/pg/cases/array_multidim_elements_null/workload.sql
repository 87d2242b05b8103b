-- (session 23, Left by session 22) multi-dimensional arrays of boolean, date, timestamp, timestamptz, float8, int8,
-- int2, float4, time, bytea and a three-dimensional integer array: pgjdbc hands Debezium an array per sub-array, which
-- the element converter cannot read: every element of the outer array is null (one-dimensional arrays convert).
-- (varchar[][] and uuid[][] print Java's identity hash of each sub-array: the deliberate difference of
-- text_array_2d_identity_hash_lost, recorded the same session; not in this case.)
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.m_bool (id integer PRIMARY KEY, a boolean[][]);
CREATE TABLE public.m_date (id integer PRIMARY KEY, a date[][]);
CREATE TABLE public.m_ts (id integer PRIMARY KEY, a timestamp[][]);
CREATE TABLE public.m_tstz (id integer PRIMARY KEY, a timestamptz[][]);
CREATE TABLE public.m_f8 (id integer PRIMARY KEY, a float8[][]);
CREATE TABLE public.m_i8 (id integer PRIMARY KEY, a int8[][]);
CREATE TABLE public.m_i2 (id integer PRIMARY KEY, a int2[][]);
CREATE TABLE public.m_f4 (id integer PRIMARY KEY, a float4[][]);
CREATE TABLE public.m_time (id integer PRIMARY KEY, a time[][]);
CREATE TABLE public.m_bytea (id integer PRIMARY KEY, a bytea[][]);
CREATE TABLE public.m_i3 (id integer PRIMARY KEY, a integer[][][]);
INSERT INTO public.m_bool VALUES (1, '{{t,f},{NULL,t}}'), (2, '{t}');
INSERT INTO public.m_date VALUES (1, '{{2020-01-02,1999-12-31},{NULL,2000-02-29}}'), (2, '{2020-01-01}');
INSERT INTO public.m_ts VALUES (1, '{{"2020-01-02 03:04:05.123456","1999-12-31 23:59:59"}}'), (2, '{"2020-01-01 00:00:00"}');
INSERT INTO public.m_tstz VALUES (1, '{{"2020-01-02 03:04:05.123456+02","1999-12-31 23:59:59Z"}}');
INSERT INTO public.m_f8 VALUES (1, '{{1.5,NaN},{Infinity,-0}}');
INSERT INTO public.m_i8 VALUES (1, '{{1,2},{3,NULL}}');
INSERT INTO public.m_i2 VALUES (1, '{{1,2},{3,4}}');
INSERT INTO public.m_f4 VALUES (1, '{{1.25,2}}');
INSERT INTO public.m_time VALUES (1, '{{10:11:12.5,23:59:59}}');
INSERT INTO public.m_bytea VALUES (1, '{{"\\x0102","\\xff"}}');
INSERT INTO public.m_i3 VALUES (1, '{{{1,2}},{{3,4}}}');
-- @section stream
INSERT INTO public.m_bool VALUES (3, '{{f},{t}}');
INSERT INTO public.m_date VALUES (3, '{{2021-03-04},{2022-05-06}}');
INSERT INTO public.m_ts VALUES (3, '{{"2021-03-04 05:06:07"}}');
INSERT INTO public.m_tstz VALUES (3, '{{"2021-03-04 05:06:07+00"}}');
INSERT INTO public.m_f8 VALUES (3, '{{2.5},{3.5}}');
INSERT INTO public.m_i8 VALUES (3, '{{5},{6}}');
INSERT INTO public.m_i2 VALUES (3, '{{5},{6}}');
INSERT INTO public.m_f4 VALUES (3, '{{0.1}}');
INSERT INTO public.m_time VALUES (3, '{{01:02:03}}');
INSERT INTO public.m_bytea VALUES (3, '{{"\\x00"}}');
INSERT INTO public.m_i3 VALUES (3, '{{{5}}}');
