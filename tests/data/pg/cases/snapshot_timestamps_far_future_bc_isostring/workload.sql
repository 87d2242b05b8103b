-- Case snapshot_timestamps_far_future_bc_isostring (session 20): the workload of snapshot_timestamps_far_future_bc
-- under time.precision.mode=isostring (infinity as +294247-01-10T04:00:25.2Z, -infinity as
-- -290308-12-21T19:59:27.6Z, 1 BC as 0000-01-01). Matched before: a regression case.
-- @set time.precision.mode=isostring
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.tsnap (id integer PRIMARY KEY, ts timestamp, ts3 timestamp(3), ts0 timestamp(0), tz timestamptz, tz3 timestamptz(3));
INSERT INTO public.tsnap VALUES (1, '2024-01-01 00:00:00.123456', '2024-01-01 00:00:00.123', '2024-01-01 00:00:00', '2024-01-01 00:00:00.123456+00', '2024-01-01 00:00:00.123+00');
INSERT INTO public.tsnap VALUES (2, '10000-01-01 00:00:00', '10000-01-01 00:00:00.5', '12345-06-07 08:09:10', '10000-01-01 00:00:00+00', '10000-01-01 00:00:00.5+00');
INSERT INTO public.tsnap VALUES (3, 'infinity', 'infinity', 'infinity', 'infinity', 'infinity');
INSERT INTO public.tsnap VALUES (4, '-infinity', '-infinity', '-infinity', '-infinity', '-infinity');
INSERT INTO public.tsnap VALUES (5, '0044-03-15 12:00:00.5 BC', '0044-03-15 12:00:00.5 BC', '0001-01-01 00:00:00 BC', '0044-03-15 12:00:00.5+00 BC', '0044-03-15 12:00:00+00 BC');
INSERT INTO public.tsnap VALUES (6, '4713-01-01 00:00:00 BC', '1582-10-10 00:00:00', '1582-10-15 00:00:00', '4713-01-01 00:00:00+00 BC', '1582-10-10 00:00:00+00');
INSERT INTO public.tsnap VALUES (7, '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999', '294247-01-10 04:00:55', '294276-12-31 23:59:59.999999+00', '294276-12-31 23:59:59.999+00');
INSERT INTO public.tsnap VALUES (8, '294247-01-10 04:00:54.775808', '294247-01-10 04:00:54.776', '294247-01-10 04:00:54', '294247-01-10 04:00:54.775807+00', '9999-12-31 23:59:59.999+00');
INSERT INTO public.tsnap VALUES (9, '0001-01-01 00:00:00', '0001-01-01 00:00:00', '0001-01-01 00:00:00', '0001-01-01 00:00:00+00', '0001-01-01 00:00:00+00');
-- @section stream
INSERT INTO public.tsnap VALUES (100, '2024-01-01 00:00:00', NULL, NULL, NULL, NULL);
