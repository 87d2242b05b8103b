-- PostgreSQL workload for the converter recordings (Avro / JSON options): many column types, nullable
-- columns with defaults, arrays, json. `pre` runs before the connector starts, `stream` once it streams.

-- @section pre
CREATE TABLE typed (
  id        INTEGER PRIMARY KEY,
  small     SMALLINT DEFAULT 7,
  big       BIGINT,
  real_v    REAL,
  dbl       DOUBLE PRECISION DEFAULT 2.5,
  num       NUMERIC(12,4) DEFAULT 1.5000,
  num_free  NUMERIC,
  money_v   MONEY,
  flag      BOOLEAN NOT NULL DEFAULT false,
  label     TEXT DEFAULT 'none',
  ch        CHAR(3),
  day       DATE DEFAULT '2020-02-29',
  t         TIME(3),
  ttz       TIMETZ,
  ts        TIMESTAMP(6),
  tstz      TIMESTAMPTZ,
  iv        INTERVAL,
  uid       UUID,
  js        JSON,
  jsb       JSONB,
  bin       BYTEA,
  tags      TEXT[],
  nums      INTEGER[],
  bits      BIT(4),
  inet_v    INET
);
INSERT INTO typed VALUES
  (1, 1, 9007199254740993, 1.1, 1e10, 12.3400, 0.000000001, 12.34, true, 'a "quoted" \ label', 'ab',
   '2024-02-29', '13:14:15.678', '10:00:00+02', '2024-02-29 13:14:15.123456', '2024-02-29 13:14:15+01',
   '1 year 2 mons 3 days 04:05:06.7', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2.5, null]}',
   '{"b": {"c": true}}', '\x00ff10', '{x,"y z",NULL}', '{1,2,3}', B'1010', '192.168.0.1/24'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, -32768, -9223372036854775808, -0.0, 1.5e-7, -99999999.9999, -12345678901234567890.123456789, -0.01,
   true, '', 'xyz', '1970-01-01', '00:00:00', '23:59:59-08', '1970-01-01 00:00:00', '1969-12-31 23:59:59.999999+00',
   '-1 days', '00000000-0000-0000-0000-000000000000', '[]', '{}', '', '{}', '{}', B'0000', '::1');

-- @section stream
INSERT INTO typed (id, big, real_v, num, num_free, label, tags, nums, js)
  VALUES (4, 42, 3.4028235e38, 0.0001, 1e20, 'stream', '{"",NULL}', '{-1,0}', 'null');
INSERT INTO typed (id) VALUES (5);
UPDATE typed SET num = 2.5000, label = NULL, dbl = NULL, day = NULL WHERE id = 1;
UPDATE typed SET small = 8 WHERE id = 5;
DELETE FROM typed WHERE id = 3;
