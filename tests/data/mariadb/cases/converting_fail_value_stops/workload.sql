-- (session 23, diffcamp31) event.converting.failure.handling.mode=fail on the MySqlConnector: a value its converter
-- throws on (time.precision.mode=nanoseconds, a DATETIME past epoch nanoseconds' long range, here in a nullable
-- column, where `warn` gives null) stops Debezium (TableSchemaBuilder's FAIL case) instead of leaving the field null.
-- @set time.precision.mode=nanoseconds
-- @set event.converting.failure.handling.mode=fail
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE cf (id INT PRIMARY KEY, dt DATETIME(6) NULL, d DATE, z DATETIME NOT NULL DEFAULT '2001-01-01 00:00:00', n INT);
INSERT INTO cf VALUES (1, '2021-03-04 05:06:07.5', '2021-03-04', '2021-03-04 05:06:07', 1), (2, NULL, NULL, '2262-04-11 23:47:16', 2);
-- @section stream
INSERT INTO cf VALUES (11, '2021-03-04 05:06:07.5', '9999-12-31', '2021-03-04 05:06:07', 1);
-- @quiet
INSERT INTO cf VALUES (12, '9999-12-31 23:59:59', '2021-03-04', '2021-03-04 05:06:07', 2);
INSERT INTO cf VALUES (13, '2021-03-04 05:06:07.5', '2021-03-04', '2021-03-04 05:06:07', 3);
