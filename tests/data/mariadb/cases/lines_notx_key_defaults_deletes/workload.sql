-- The binlog line path (rows straight into their lines, no transaction metadata): multi-row UPDATEs and
-- DELETEs (with tombstones) of tables whose key fields print their column's default for NULL, the same key
-- in some rows of an event and a key change in another; nullable DECIMAL precise with and without a default;
-- NOT NULL DATE / DATETIME(0/3/6) including zero dates.
-- @set provide.transaction.metadata=false
-- @set message.key.columns=inventory\.kd:g,d
-- @section pre
SET SESSION sql_mode = '';
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE kd (id INT PRIMARY KEY, g VARCHAR(8) DEFAULT 'dflt', d DECIMAL(8,3) DEFAULT -2.125, v INT, m DECIMAL(10,4) NULL, m2 DECIMAL(5,1) NULL DEFAULT 9.5);
INSERT INTO kd VALUES (1, NULL, NULL, 1, NULL, NULL), (2, 'two', 2.5, 2, 1.0001, 3.5), (3, NULL, 0.001, 3, -99999.9999, NULL);
CREATE TABLE tm (id INT PRIMARY KEY, da DATE NOT NULL, t0 DATETIME NOT NULL, t3 DATETIME(3) NOT NULL, t6 DATETIME(6) NOT NULL, n DECIMAL(30,10) NOT NULL);
INSERT INTO tm VALUES (1, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00.000', '0000-00-00 00:00:00.000000', 0), (2, '1969-12-31', '1900-01-01 00:00:01', '2038-01-19 03:14:07.999', '9999-12-31 23:59:59.999999', -12345678901234567890.0123456789);
-- @section stream
SET SESSION sql_mode = '';
INSERT INTO kd VALUES (4, NULL, NULL, 4, 0, NULL), (5, 'five', NULL, 5, NULL, 0.1);
UPDATE kd SET v = v * 10 WHERE id IN (1, 3, 4);
UPDATE kd SET m = 12.5, m2 = NULL WHERE id IN (2, 5);
UPDATE kd SET g = 'dflt', v = 0 WHERE id IN (1, 2);
UPDATE kd SET d = -2.125 WHERE id = 4;
UPDATE kd SET d = NULL WHERE id = 3;
DELETE FROM kd WHERE id IN (1, 4, 5);
DELETE FROM kd WHERE id = 3;
INSERT INTO tm VALUES (3, '2024-02-29', '2024-02-29 12:00:00', '1970-01-01 00:00:00.001', '1970-01-01 00:00:00.000001', 0.0000000001), (4, '0000-00-00', '2000-01-01 00:00:00', '0000-00-00 00:00:00', '2000-01-01 00:00:00', 99999999999999999999.9999999999);
UPDATE tm SET t6 = '0000-00-00 00:00:00', n = n + 1 WHERE id IN (2, 3);
UPDATE tm SET da = '0000-00-00', t3 = '2001-02-03 04:05:06.789' WHERE id = 3;
DELETE FROM tm WHERE id IN (1, 4);
DELETE FROM tm WHERE id = 2;
