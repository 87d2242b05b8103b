-- enable.time.adjuster=false: years 0001-0099 in DATE and DATETIME are kept as stored, in the snapshot, the stream
-- and column defaults alike (with the default true Debezium moves them: case year_adjust_two_digit); YEAR columns
-- are adjusted either way (convertYearToInt calls adjustTemporal itself: YEAR 0000 is 2000 in the snapshot). Default
-- time.precision.mode. Recorded with the harness (MySqlConnector on MariaDB).
-- @set enable.time.adjuster=false
-- @section pre
CREATE DATABASE inventory;
USE inventory;
SET SESSION sql_mode = '';
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE ya (id INT PRIMARY KEY, d DATE, dt DATETIME, dt3 DATETIME(3), dt6 DATETIME(6), dd DATE DEFAULT '0005-06-07', dtd DATETIME DEFAULT '0075-01-02 03:04:05', y YEAR);
INSERT INTO ya VALUES (1, '0001-01-01', '0001-01-01 00:00:00', '0069-12-31 23:59:59.999', '0070-01-01 00:00:00.000001', DEFAULT, DEFAULT, 0);
INSERT INTO ya VALUES (2, '0099-12-31', '0100-01-01 00:00:00', '0099-02-28 12:00:00.5', '0004-02-29 01:02:03.4', '0100-03-04', '0069-02-28 00:00:00', 2000);
INSERT INTO ya VALUES (3, '0070-01-01', '0069-12-31 23:59:59', '1000-01-01 00:00:00', '0050-05-05 05:05:05', NULL, NULL, NULL);
-- @section stream
SET SESSION sql_mode = '';
INSERT INTO ya VALUES (11, '0001-01-01', '0001-01-01 00:00:00', '0069-12-31 23:59:59.999', '0070-01-01 00:00:00.000001', DEFAULT, DEFAULT, 0);
INSERT INTO ya VALUES (12, '0099-12-31', '0100-01-01 00:00:00', '0099-02-28 12:00:00.5', '0004-02-29 01:02:03.4', '0100-03-04', '0069-02-28 00:00:00', 2000);
INSERT INTO ya VALUES (13, '0070-01-01', '0069-12-31 23:59:59', '1000-01-01 00:00:00', '0050-05-05 05:05:05', NULL, NULL, NULL);
UPDATE ya SET d = '0010-10-10' WHERE id = 1;
ALTER TABLE ya ADD COLUMN da DATE DEFAULT '0042-04-02';
INSERT INTO ya (id) VALUES (14);
