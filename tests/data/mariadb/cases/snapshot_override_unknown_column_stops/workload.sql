-- Case snapshot_override_unknown_column_stops (diffcamp8, session 14, hand-written beside campaign seed 74001): a
-- snapshot.select.statement.overrides statement whose result has a column the table does not have. Debezium's
-- snapshot stops ("Column 'extra' not found in result set 'id, d, extra' for table 'inventory.t3'",
-- ColumnUtils.toArray) after the schema-change records; the emulator read the rows and went on, it now stops too.
-- Recorded twice (8 records both times).
-- @set snapshot.select.statement.overrides=inventory.t3
-- @set snapshot.select.statement.overrides.inventory.t3=SELECT *, id * 2 AS extra FROM inventory.t3 WHERE id > 1 ORDER BY id DESC
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t3 (id INT NOT NULL PRIMARY KEY, d DATETIME(3));
INSERT INTO t3 VALUES (1, '2020-01-01 00:00:00.5'), (2, NULL), (3, '1999-12-31 23:59:59.999');
-- @section stream
INSERT INTO t3 VALUES (4, NULL);
