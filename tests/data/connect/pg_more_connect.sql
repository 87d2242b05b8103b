-- PostgreSQL workload of the data-plane campaign (emulator/testing/connect_draws.py): an enum, numeric and
-- temporal columns of several precisions, arrays, json/uuid, TOAST-able text left unchanged by an update
-- (Debezium's unavailable-value placeholder), a keyless insert-only table, a keyless table with
-- REPLICA IDENTITY FULL, transactions over several tables, deletes and their tombstones.
-- `pre` runs before the connector starts, `stream` once it streams. Every value is a literal.

-- @section pre
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE events (
  id        BIGINT PRIMARY KEY,
  kind      mood NOT NULL DEFAULT 'ok',
  body      TEXT,
  price     NUMERIC(20,6),
  amount    NUMERIC,
  small_n   NUMERIC(5,0),
  at_tz     TIMESTAMPTZ(3),
  at_local  TIMESTAMP(0),
  day       DATE,
  t6        TIME(6),
  uid       UUID,
  doc       JSONB,
  ids       INTEGER[],
  words     VARCHAR(8)[],
  fl        REAL DEFAULT 1.5
);
CREATE TABLE logs (msg TEXT, n INTEGER);
CREATE TABLE audit (who VARCHAR(16), what TEXT, at_day DATE);
ALTER TABLE audit REPLICA IDENTITY FULL;
INSERT INTO events VALUES
  (1, 'happy', repeat('long text ', 1200), 123456.789012, 1e-12, 99999, '2024-03-10 02:30:00.5+00',
   '2024-03-10 02:30:00', '0001-01-01', '23:59:59.999999', 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
   '{"k": [1, {"x": null}], "s": "\u00e9"}', '{1,NULL,3}', '{a,"b c"}', 0.1),
  (2, 'sad', 'short', -0.000001, -123456789012345678901234567890.5, -1, NULL, '1970-01-01 00:00:00',
   '2038-01-19', '00:00:00.000001', NULL, 'null', '{}', NULL, NULL),
  (3, DEFAULT, NULL, NULL, NULL, NULL, '1900-06-30 12:00:00+01', NULL, NULL, NULL, NULL, NULL, NULL, NULL, DEFAULT);
INSERT INTO logs VALUES ('boot', 1), (NULL, NULL);
INSERT INTO audit VALUES ('ann', 'created', '2024-01-01');

-- @section stream
UPDATE events SET kind = 'sad', price = 1.5 WHERE id = 1;
BEGIN;
INSERT INTO events (id, kind, body, amount, at_tz, doc, ids) VALUES
  (4, 'ok', repeat('x', 5000), 0, '2025-12-31 23:59:59.999+00', '{"deep": {"deeper": [true, false]}}', '{-5}');
INSERT INTO logs VALUES ('tx', 2);
UPDATE audit SET what = 'changed' WHERE who = 'ann';
COMMIT;
INSERT INTO logs VALUES ('stream', 3);
DELETE FROM events WHERE id = 2;
BEGIN;
INSERT INTO audit VALUES ('bob', NULL, NULL);
DELETE FROM audit WHERE who = 'ann';
UPDATE events SET body = NULL, words = '{z}' WHERE id = 3;
COMMIT;
DELETE FROM events WHERE id = 1;
