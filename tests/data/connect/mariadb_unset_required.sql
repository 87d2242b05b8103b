-- MariaDB workload for a converter that throws on a NOT NULL column with a DEFAULT (session 23, diffcamp31; the
-- Connect campaign's seed 139 trial 3): under time.precision.mode=nanoseconds a DATETIME past epoch nanoseconds'
-- long range, under isostring or connect a TIME outside a day. Debezium's TableSchemaBuilder leaves the field
-- null; JsonConverter prints the schema default (Struct.get), while ExtractNewRecordState's addFields puts the raw
-- value (getWithoutDefault) and fails ("Invalid value: null used for required field"). Nullable, TIMESTAMP and
-- in-range variants beside them; snapshot and stream.
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
SET SESSION sql_mode = '';
CREATE TABLE ur (id INT PRIMARY KEY, dtz DATETIME(6) NOT NULL DEFAULT '0000-00-00 00:00:00', dtd DATETIME(3) NOT NULL DEFAULT '2001-02-03 04:05:06.5', dtn DATETIME(6) NULL, ts TIMESTAMP(6) NOT NULL DEFAULT '2001-02-03 04:05:06', tm TIME(2) NOT NULL DEFAULT '01:02:03.5', tn TIME NULL, n INT);
INSERT INTO ur VALUES (1, '2021-03-04 05:06:07.123456', '2021-03-04 05:06:07.5', '2021-03-04 05:06:07', '2021-03-04 05:06:07', '12:00:00', '13:00:00', 1);
INSERT INTO ur VALUES (2, '9999-12-31 23:59:59.999999', '2021-03-04 05:06:07.5', '9999-12-31 23:59:59', '2038-01-19 03:14:07.999999', '12:00:00', '-01:00:00', 2);
INSERT INTO ur VALUES (3, '2021-03-04 05:06:07', '1677-09-21 00:00:00', NULL, '1970-01-01 00:00:01', '-00:00:01', '25:00:00', 3);
INSERT INTO ur VALUES (4, '2262-04-11 23:47:16.854775', '2262-04-12 00:00:00', '1000-01-01 00:00:00', '2001-01-01 00:00:00', '838:59:59', NULL, 4);
INSERT INTO ur VALUES (5, '2021-03-04 05:06:07', '2021-03-04 05:06:07', NULL, '2001-01-01 00:00:00', '23:59:59.99', '24:00:00', 5);
-- @section stream
SET SESSION sql_mode = '';
INSERT INTO ur VALUES (11, '2021-03-04 05:06:07.123456', '2021-03-04 05:06:07.5', '2021-03-04 05:06:07', '2021-03-04 05:06:07', '12:00:00', '13:00:00', 1);
INSERT INTO ur VALUES (12, '9999-12-31 23:59:59.999999', '2021-03-04 05:06:07.5', '9999-12-31 23:59:59', '2038-01-19 03:14:07.999999', '12:00:00', '-01:00:00', 2);
INSERT INTO ur VALUES (13, '2021-03-04 05:06:07', '1677-09-21 00:00:00', NULL, '1970-01-01 00:00:01', '-00:00:01', '25:00:00', 3);
INSERT INTO ur VALUES (14, '2262-04-11 23:47:16.854775', '2262-04-12 00:00:00', '1000-01-01 00:00:00', '2001-01-01 00:00:00', '838:59:59', NULL, 4);
UPDATE ur SET n = 20 WHERE id = 2;
UPDATE ur SET dtz = '2021-01-01 00:00:00', tm = '12:00:00' WHERE id = 12;
UPDATE ur SET dtz = '9999-01-01 00:00:00', tm = '-12:00:00' WHERE id = 11;
DELETE FROM ur WHERE id = 3;
DELETE FROM ur WHERE id = 1;
INSERT INTO ur VALUES (15, '2021-03-04 05:06:07', '2021-03-04 05:06:07', NULL, '2001-01-01 00:00:00', '23:59:59.99', '24:00:00', 5);
