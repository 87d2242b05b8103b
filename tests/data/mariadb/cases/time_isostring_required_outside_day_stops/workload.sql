-- time.precision.mode=isostring: a NOT NULL TIME holding a value outside 00:00:00..24:00:00 (IsoTime refuses it,
-- the null fails the required field) stops Debezium at that streamed row; the rows before it are delivered.
-- NOT NULL DATETIME(6) with nanoseconds is in nanos_required. Recorded with the harness (MySqlConnector on MariaDB).
-- @set time.precision.mode=isostring
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE tr (id INT PRIMARY KEY, t TIME(3) NOT NULL, n INT);
INSERT INTO tr VALUES (1, '24:00:00', 1), (2, '00:00:00.5', 2);
-- @section stream
INSERT INTO tr VALUES (3, '23:59:59.999', 3);
-- @quiet
INSERT INTO tr VALUES (4, '-00:00:00.001', 4);
INSERT INTO tr VALUES (5, '01:00:00', 5);
