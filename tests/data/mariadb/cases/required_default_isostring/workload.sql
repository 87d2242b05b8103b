-- time.precision.mode=isostring: a NOT NULL column with a DEFAULT holding a value the mode cannot convert (TIME outside a
-- day, DATETIME outside epoch nanoseconds) reads as its schema default: Debezium's converter fails, TableSchemaBuilder
-- leaves the field null and Connect's Struct takes a required field's default (without a DEFAULT it stops: cases
-- time_*_required_*_stops). Snapshot and stream. Found by campaign seed 106008. Recorded with the harness
-- (MySqlConnector on MariaDB).
-- @set time.precision.mode=isostring
-- @section pre
CREATE DATABASE inventory;
USE inventory;
SET SESSION sql_mode = '';
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE rd (id INT PRIMARY KEY, t TIME(3) NOT NULL DEFAULT '01:02:03.5', dt DATETIME(6) NOT NULL DEFAULT '2001-02-03 04:05:06.5', dz DATETIME NOT NULL DEFAULT '0000-00-00 00:00:00', n INT);
INSERT INTO rd VALUES (1, '-00:00:01', '9999-12-31 23:59:59.999999', '1000-01-01 00:00:00', 1), (2, '25:00:00', '1677-09-21 00:00:00', '2262-04-12 00:00:00', 2), (3, '12:00:00', '2021-03-04 05:06:07', '2021-03-04 05:06:07', 3);
-- @section stream
SET SESSION sql_mode = '';
INSERT INTO rd VALUES (11, '-00:00:01', '9999-12-31 23:59:59.999999', '1000-01-01 00:00:00', 1), (12, '25:00:00', '1677-09-21 00:00:00', '2262-04-12 00:00:00', 2), (13, '12:00:00', '2021-03-04 05:06:07', '2021-03-04 05:06:07', 3);
UPDATE rd SET t = '-838:59:59', dt = '1000-01-01 00:00:00' WHERE id = 3;
ALTER TABLE rd ADD COLUMN t2 TIME NOT NULL DEFAULT '23:00:00';
INSERT INTO rd (id, t, dt, dz, t2) VALUES (14, '30:00:00', '0001-01-01 00:00:00', '0000-00-00 00:00:00', '-01:00:00');
