-- PostgreSQL workload with NULLs in key fields whose columns have defaults (a nullable unique-index key, a
-- message.key.columns column) and NULLs in value fields with defaults: key changes to and from NULL give the
-- __debezium.oldkey / newkey headers. `pre` runs before the connector starts, `stream` once it streams.

-- @section pre
CREATE TABLE ud (a integer DEFAULT 7, b text, c numeric(6,2) DEFAULT 1.5, d date DEFAULT '2024-01-15');
CREATE UNIQUE INDEX ud_a ON ud (a);
ALTER TABLE ud REPLICA IDENTITY FULL;
INSERT INTO ud VALUES (1, 'x', NULL, NULL), (NULL, 'y', 2.25, '2020-02-02');
CREATE TABLE mk (id integer PRIMARY KEY, g text DEFAULT 'dflt', v integer);
ALTER TABLE mk REPLICA IDENTITY FULL;
INSERT INTO mk VALUES (1, NULL, 1), (2, 'two', 2);

-- @section stream
INSERT INTO ud VALUES (NULL, 'n', NULL, NULL);
UPDATE ud SET a = NULL WHERE a = 1;
UPDATE ud SET a = 3 WHERE b = 'n';
DELETE FROM ud WHERE b = 'y';
INSERT INTO mk VALUES (3, NULL, 3);
UPDATE mk SET g = NULL WHERE id = 2;
UPDATE mk SET g = 'dflt' WHERE id = 3;
DELETE FROM mk WHERE id = 1;
