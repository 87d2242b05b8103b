-- Outbox payloads (JSONB, Debezium's default column names) whose JSON keys Avro rejects: hyphens, a leading digit,
-- a dot, non-ASCII letters, nested and in arrays of objects, and two keys that adjust to the same name. For
-- EventRouter table.expand.json.payload with field.name.adjustment.mode (session 19). Every value is a literal.

-- @section pre
CREATE TABLE outbox (
  id            UUID PRIMARY KEY,
  aggregatetype VARCHAR(255) NOT NULL,
  aggregateid   VARCHAR(255) NOT NULL,
  type          VARCHAR(255) NOT NULL,
  payload       JSONB
);

-- @section stream
INSERT INTO outbox VALUES ('11111111-1111-1111-1111-111111111111', 'Order', '1', 'Created',
  '{"order-id": 1, "1st": "a", "ok": true, "a.b": 2.5, "ñame": "x", "in-ner": {"x-y": 1, "z": [1, 2]}}');
INSERT INTO outbox VALUES ('22222222-2222-2222-2222-222222222222', 'Order', '2', 'Lines',
  '{"lines": [{"sku-id": "A-1", "qty": 2}, {"sku-id": "B-2", "qty": 3}], "total": 20}');
INSERT INTO outbox VALUES ('33333333-3333-3333-3333-333333333333', 'Order', '3', 'Clash',
  '{"a-b": 1, "a_b": 2, "€": "euro", "_ok": null}');
