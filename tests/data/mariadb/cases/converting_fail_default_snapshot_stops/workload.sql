-- (session 24, session 23's "Left") event.converting.failure.handling.mode=fail on the MySqlConnector with a DEFAULT
-- its converter cannot convert (time.precision.mode=isostring, a TIME DEFAULT outside a day) in a table the initial
-- snapshot reads: Debezium builds each table's schema as its snapshot reads the schema
-- (TableSchemaBuilder.parseDefaultValue's FAIL case): Debezium's records end with a0's CREATE TABLE ("Failed to
-- properly convert default value for 'inventory.cd.t2'"). The emulator built the schemas after the snapshot's schema
-- changes and wrote cd's and debezium_signal's CREATE TABLE first (2 extra records); it now builds each captured
-- table's schema as its CREATE TABLE goes out under `fail`.
-- @set time.precision.mode=isostring
-- @set event.converting.failure.handling.mode=fail
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE a0 (id INT PRIMARY KEY, t TIME);
INSERT INTO a0 VALUES (1, '12:00:00'), (2, '13:00:00');
CREATE TABLE cd (id INT PRIMARY KEY, t TIME, t2 TIME DEFAULT '30:00:00');
INSERT INTO cd VALUES (1, '12:00:00', '01:00:00');
CREATE TABLE z9 (id INT PRIMARY KEY);
INSERT INTO z9 VALUES (1);
-- @section stream
INSERT INTO a0 VALUES (11, '13:00:00');
