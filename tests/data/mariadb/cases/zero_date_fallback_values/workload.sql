-- converters=zd with Debezium's ZeroDateFallbackConverter and literal fallbacks on NOT NULL columns: fallback.datetime
-- and fallback.timestamp, a column-level fallback on a DATE, target.types DATE,datetime,TIMESTAMP, a selector that
-- leaves out the nullable DATETIME/TIMESTAMP columns (a literal fallback on a nullable column is refused: Debezium
-- prints it for NULL too), DATETIME(6) and TIMESTAMP(3) values, no transaction metadata (the emulator's line path).
-- Recorded with the harness (MySqlConnector on MariaDB).
-- @set converters=zd
-- @set zd.type=io.debezium.connector.binlog.converters.ZeroDateFallbackConverter
-- @set zd.target.types=DATE,datetime, TIMESTAMP
-- @set zd.fallback.datetime=1999-12-31 23:59:59
-- @set zd.fallback.timestamp=2000-01-01T01:30:00.250+01:00
-- @set zd.column.inventory.t1.dn.fallback=2010-10-10
-- @set zd.selector=inventory\.t1\.(d|d2|dn|dtn|d3|n|tsz|tsn|ts3|dt7)
-- @set provide.transaction.metadata=false
-- @section pre
CREATE DATABASE inventory;
USE inventory;
SET SESSION sql_mode = '';
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t1 (id INT PRIMARY KEY, d DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, dn DATE NOT NULL DEFAULT '2020-01-02', dtn DATETIME NOT NULL DEFAULT '0000-00-00 00:00:00', tsn TIMESTAMP NOT NULL DEFAULT '2020-01-01 00:00:00', d2 DATE DEFAULT '0000-00-00', tsz TIMESTAMP NOT NULL DEFAULT '0000-00-00 00:00:00', ts3 TIMESTAMP(3) NOT NULL DEFAULT '2020-01-01 00:00:00.120', dt7 DATETIME(6) NOT NULL DEFAULT '2001-02-03 04:05:06.5', dt8 DATETIME(6) NOT NULL, n INT);
INSERT INTO t1 VALUES (1, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', 1);
INSERT INTO t1 VALUES (2, '2021-03-04', '2021-03-04 05:06:07', '2021-03-04 05:06:07.123456', '2021-03-04 05:06:07', '1969-12-31', '1900-01-01 00:00:00', '2038-01-01 00:00:00', '2021-03-04', '1970-01-01 00:00:01', '2021-03-04 05:06:07.5', '1969-12-31 23:59:59.999999', '2021-03-04 05:06:07.000001', 2);
INSERT INTO t1 (id, ts, dt8) VALUES (3, NULL, '2020-05-00 01:02:03');
INSERT INTO t1 VALUES (4, '2020-00-15', '2020-05-00 01:02:03', NULL, NULL, '2020-01-02', '2020-01-02 03:04:05', '2020-01-02 03:04:05', NULL, '2020-01-02 03:04:05', '2020-01-02 03:04:05.100', '2020-00-02 03:04:05.100000', '2020-01-02 03:04:05.120000', 4);
-- @section stream
SET SESSION sql_mode = '';
INSERT INTO t1 VALUES (11, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', 1);
INSERT INTO t1 VALUES (12, '2021-03-04', '2021-03-04 05:06:07', '2021-03-04 05:06:07.123456', '2021-03-04 05:06:07', '1969-12-31', '1900-01-01 00:00:00', '2038-01-01 00:00:00', '2021-03-04', '1970-01-01 00:00:01', '2021-03-04 05:06:07.5', '1969-12-31 23:59:59.999999', '2021-03-04 05:06:07.000001', 2);
INSERT INTO t1 (id, ts, dt8) VALUES (13, NULL, '2020-05-00 01:02:03');
INSERT INTO t1 VALUES (14, '2020-00-15', '2020-05-00 01:02:03', NULL, NULL, '2020-01-02', '2020-01-02 03:04:05', '2020-01-02 03:04:05', NULL, '2020-01-02 03:04:05', '2020-01-02 03:04:05.100', '2020-00-02 03:04:05.100000', '2020-01-02 03:04:05.120000', 4);
UPDATE t1 SET dn = '0000-00-00', dtn = '2022-02-02 02:02:02' WHERE id = 2;
DELETE FROM t1 WHERE id = 1;
ALTER TABLE t1 ADD COLUMN d3 DATE NOT NULL DEFAULT '0000-00-00', ADD COLUMN dt4 DATETIME DEFAULT '2001-02-03 04:05:06';
INSERT INTO t1 (id, d3, dt4, dt8) VALUES (15, '0000-00-00', '0000-00-00 00:00:00', '2001-01-01'), (16, '2001-01-01', NULL, '0000-00-00');
ALTER TABLE t1 MODIFY COLUMN n DATE;
INSERT INTO t1 (id, n, dt8) VALUES (17, '0000-00-00', '2001-01-01');
