-- binary.handling.mode=hex, interval.handling.mode=string, bit strings, bytea arrays, uuid/inet/macaddr,
-- json vs jsonb normalization.
-- @set binary.handling.mode=hex
-- @set interval.handling.mode=string
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.bh (id integer PRIMARY KEY, b bytea, ba bytea[], bt bit(10), vb varbit, iv interval, ivs interval[],
  j json, jb jsonb, u uuid, i inet, c cidr, mac macaddr, mac8 macaddr8, x xml, ts tsvector, pt point);
INSERT INTO public.bh VALUES (1, '\x00ff10', '{"\\x01","\\xabcd"}', B'1010101010', B'1', '1 year 2 mons 3 days 04:05:06.789', '{"1 day","-2 hours"}',
  '{"b": 1,  "a": [1, 2]}', '{"b": 1,  "a": [1, 2]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '192.168.1.1/24', '10.0.0.0/8', '08:00:2b:01:02:03',
  '08:00:2b:01:02:03:04:05', '<a>1</a>', 'the quick brown fox', '(1,2)'),
  (2, '\x', '{}', B'0000000000', B'', '-178000000 years', '{}', '[]', '{}', '00000000-0000-0000-0000-000000000000', '::1', '::/0', 'ff:ff:ff:ff:ff:ff',
  '00:00:00:00:00:00:00:00', '<b/>', '', '(-1.5,0)');
-- @section stream
INSERT INTO public.bh SELECT id + 10, b, ba, bt, vb, iv, ivs, j, jb, u, i, c, mac, mac8, x, ts, pt FROM public.bh;
UPDATE public.bh SET b = '\xdeadbeef', iv = '-1 mons -2 days +03:00:00.000001' WHERE id = 1;
DELETE FROM public.bh WHERE id = 2;
