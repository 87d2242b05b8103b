-- time.precision.mode=nanoseconds: a NOT NULL DATETIME outside NanoTimestamp's int64 range (about 1677-09-21 to
-- 2262-04-11) cannot be converted, and the null fails the required field: Debezium stops at that streamed row;
-- the rows before it (range edges inside; Debezium multiplies the epoch day first, so 1677-09-21 is out) are delivered. Recorded with the harness (MySqlConnector on MariaDB).
-- @set time.precision.mode=nanoseconds
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE nr (id INT PRIMARY KEY, dt DATETIME(6) NOT NULL, dn DATETIME(6), n INT);
INSERT INTO nr VALUES (1, '1677-09-22 00:00:00', '1677-09-21 23:59:59.999999', 1), (2, '2262-04-11 23:47:16.854775', '2262-04-11 23:47:16.854776', 2);
-- @section stream
INSERT INTO nr VALUES (3, '1677-09-22 00:00:00', '1677-09-21 23:59:59.999999', 3);
INSERT INTO nr VALUES (4, '2262-04-11 23:47:16.854775', '2262-04-11 23:47:16.854776', 4);
-- @quiet
INSERT INTO nr VALUES (5, '2262-04-12 00:00:00', NULL, 5);
INSERT INTO nr VALUES (6, '2000-01-01 00:00:00', NULL, 6);
