-- MariaDB workload of the data-plane campaign (emulator/testing/connect_draws.py): ENUM / SET / JSON /
-- BIT / YEAR / unsigned and decimal columns, a keyless table, transactions over several tables, deletes
-- and their tombstones, and schema changes while streaming (ADD / MODIFY / RENAME / DROP COLUMN, a
-- CREATE TABLE, a DROP TABLE), each followed by rows that use it.
-- `pre` runs before the connector starts, `stream` once it streams (with --database=inventory).

-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE gadgets (
  id       INT NOT NULL PRIMARY KEY,
  size     ENUM('S','M','L') NOT NULL DEFAULT 'M',
  tags     SET('a','b','c') NULL,
  doc      JSON NULL,
  bits     BIT(5) NULL,
  amount   DECIMAL(20,6) NULL,
  big      BIGINT UNSIGNED NULL,
  tiny     TINYINT NULL DEFAULT 3,
  yr       YEAR NULL,
  dt       DATETIME(6) NULL,
  ts       TIMESTAMP(3) NULL DEFAULT NULL,
  txt      TEXT NULL,
  ratio    FLOAT NULL
);
CREATE TABLE logs (msg VARCHAR(32) NULL, n INT NULL);
INSERT INTO gadgets VALUES
  (1, 'S', 'a,c', '{"k": [1, 2.5, null]}', b'10101', 1234567.123456, 18446744073709551615, -128, 2024,
   '2024-02-29 13:14:15.123456', '2024-02-29 13:14:15.123', 'hello', 0.5),
  (2, 'L', '', 'null', b'0', -0.000001, 0, 127, 1901, '1000-01-01 00:00:00', NULL, '', -1.25),
  (3, DEFAULT, NULL, NULL, NULL, NULL, NULL, DEFAULT, NULL, NULL, NULL, NULL, NULL);
INSERT INTO logs VALUES ('boot', 1), (NULL, NULL);

-- @section stream
UPDATE gadgets SET size = 'S', tags = 'b', amount = 1.5 WHERE id = 2;
BEGIN;
INSERT INTO gadgets (id, doc, big, dt) VALUES (4, '{"deep": {"deeper": [true, false]}}', 42, '2038-01-19 03:14:07');
INSERT INTO logs VALUES ('tx', 2);
DELETE FROM gadgets WHERE id = 3;
COMMIT;
DELETE FROM logs WHERE n = 1;
ALTER TABLE gadgets ADD COLUMN extra VARCHAR(16) NULL DEFAULT 'x';
INSERT INTO gadgets (id, extra) VALUES (5, 'five');
ALTER TABLE gadgets MODIFY COLUMN tiny SMALLINT NULL DEFAULT 9;
UPDATE gadgets SET tiny = 300 WHERE id = 1;
ALTER TABLE gadgets CHANGE COLUMN txt note TEXT NULL;
UPDATE gadgets SET note = 'renamed' WHERE id = 2;
ALTER TABLE gadgets DROP COLUMN ratio;
INSERT INTO gadgets (id, note) VALUES (6, 'after drop');
CREATE TABLE late (id INT NOT NULL PRIMARY KEY, v VARCHAR(8) NULL);
INSERT INTO late VALUES (1, 'a');
DELETE FROM gadgets WHERE id = 1;
DROP TABLE late;
