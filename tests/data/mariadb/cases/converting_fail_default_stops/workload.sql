-- (session 23, diffcamp31) event.converting.failure.handling.mode=fail on the MySqlConnector: a DEFAULT its converter
-- cannot convert (time.precision.mode=isostring, a TIME DEFAULT outside a day, which `warn` leaves without a schema
-- default) stops Debezium when it builds the table's schema (TableSchemaBuilder.parseDefaultValue's FAIL case).
-- @set time.precision.mode=isostring
-- @set event.converting.failure.handling.mode=fail
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE cd (id INT PRIMARY KEY, t TIME, n INT);
INSERT INTO cd VALUES (1, '12:00:00', 1);
-- @section stream
INSERT INTO cd VALUES (11, '13:00:00', 1);
-- @quiet
ALTER TABLE cd ADD COLUMN t2 TIME DEFAULT '30:00:00';
INSERT INTO cd VALUES (12, '14:00:00', 2, '01:00:00');
