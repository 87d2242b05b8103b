-- Outbox table with every EventRouter column option: event timestamp (TIMESTAMP(6) -> MicroTimestamp),
-- schema version, a partition column, a text payload that can be empty (route.tombstone.on.empty.payload),
-- an UPDATE (table.op.invalid.behavior) and deletes. Every value is a literal.

-- @section pre
CREATE TABLE outbox2 (
  id            UUID PRIMARY KEY,
  aggregatetype VARCHAR(255) NOT NULL,
  aggregateid   VARCHAR(255) NOT NULL,
  type          VARCHAR(255) NOT NULL,
  payload       TEXT,
  created_at    TIMESTAMP(6) NOT NULL,
  version       INTEGER NOT NULL DEFAULT 1,
  part          INTEGER
);

-- @section stream
INSERT INTO outbox2 VALUES ('aaaaaaaa-0000-0000-0000-000000000001', 'Order', 'o-1', 'Created', '{"a": 1}',
  '2024-05-01 10:00:00.123456', 1, 2);
INSERT INTO outbox2 VALUES ('aaaaaaaa-0000-0000-0000-000000000002', 'Order', 'o-1', 'Deleted', '',
  '2023-12-31 23:59:59', 2, 3);
UPDATE outbox2 SET type = 'Changed' WHERE id = 'aaaaaaaa-0000-0000-0000-000000000001';
INSERT INTO outbox2 VALUES ('aaaaaaaa-0000-0000-0000-000000000003', 'Invoice', 'i-9', 'Issued', '{"n": [1, 2]}',
  '2022-02-02 00:00:00', 1, 0);
INSERT INTO outbox2 VALUES ('aaaaaaaa-0000-0000-0000-000000000004', 'Invoice', 'i-9', 'Paid', NULL,
  '2021-07-04 12:00:00', 2, 1);
DELETE FROM outbox2;
