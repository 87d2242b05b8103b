-- MariaDB workload of the data-plane campaign (emulator/testing/connect_draws.py) for Debezium's binlog custom
-- converters (converters=, drawn by connect_draws from workloads_mariadb_conv's selectors on table convs):
-- TINYINT(1)/BOOLEAN, REAL/FLOAT/DOUBLE, CHAR/VARCHAR/TEXT in utf8mb4/latin1/cp1251, DATE/DATETIME/TIMESTAMP
-- with zero dates and NOT NULL defaults, written by workloads_mariadb_conv.convs (seed 1), ALTERs included.
-- `pre` runs before the connector starts, `stream` once it streams (with --database=inventory).

-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
SET SESSION sql_mode = '';
CREATE TABLE convs (id INT PRIMARY KEY, b1 TINYINT(1), b2 BOOLEAN NOT NULL DEFAULT TRUE, b3 TINYINT(2) UNSIGNED DEFAULT 0, b4 TINYINT(1) UNSIGNED DEFAULT 1, b5 SMALLINT DEFAULT -3, b6 TINYINT(1) NOT NULL DEFAULT -1, r1 REAL, r2 FLOAT DEFAULT 1.1, r3 DOUBLE NOT NULL DEFAULT 2.5, r4 FLOAT(7,2), c1 VARCHAR(20), c2 CHAR(5) CHARACTER SET latin1 DEFAULT 'ab', s3 TEXT, s4 VARCHAR(10) NOT NULL DEFAULT 'x', s5 TINYTEXT CHARACTER SET cp1251, d1 DATE, d2 DATE NOT NULL DEFAULT '0000-00-00', dt1 DATETIME, dt2 DATETIME(6) NOT NULL DEFAULT '0000-00-00 00:00:00', dt3 DATETIME(3) NOT NULL DEFAULT '2001-02-03 04:05:06.789', ts1 TIMESTAMP NULL, ts2 TIMESTAMP(3) NOT NULL DEFAULT '0000-00-00 00:00:00', tm TIME, n INT) DEFAULT CHARSET=utf8mb4;
INSERT INTO convs (id, b1, b2, b3, b4, b5, b6, r1, r2, r3, r4, c1, c2, s3, s4, s5, d1, d2, dt1, dt2, dt3, ts1, ts2, tm, n) VALUES (1, 1, 0, 2, 1, 5, -1, 1.1, 1.1, 1.1, 1.15, 'héllo', 'ça', 'text ü', 'v', 'жд', '2021-03-04', '1969-12-31', '2021-03-04 05:06:07', '2021-03-04 05:06:07.123456', '1970-01-01 00:00:00.5', '2021-03-04 05:06:07', '2038-01-01 00:00:00.125', '10:11:12', 1), (2, -1, 1, 255, 0, 0, 127, -0.5, 3.4e38, 1e-300, -99999.99, '', '', '', '', '', '0000-00-00', '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '-01:00:00', 2), (3, NULL, 1, NULL, NULL, NULL, -128, NULL, NULL, 0, NULL, NULL, NULL, NULL, 'z', NULL, NULL, '2020-00-15', NULL, '2020-05-00 01:02:03', '1999-12-31 23:59:59.999', NULL, '1970-01-01 00:00:01', NULL, NULL);
INSERT INTO convs (id) VALUES (5);
CREATE TABLE convs_k (b TINYINT(1) NOT NULL, d DATE NOT NULL, r DOUBLE, PRIMARY KEY (b, d));
INSERT INTO convs_k VALUES (1, '0000-00-00', 1.5), (0, '2020-01-01', NULL);
SET SESSION sql_mode = DEFAULT;

-- @section stream
SET SESSION sql_mode = '';
INSERT INTO convs_k VALUES (-1, '2020-00-00', 2.5);
UPDATE convs_k SET b = 2 WHERE b = 1;
DELETE FROM convs_k WHERE b = 0;
SET SESSION sql_mode = '';
INSERT INTO convs (id, b1, b2, b3, b4, b5, b6, r1, r2, r3, r4, c1, c2, s3, s4, s5, d1, d2, dt1, dt2, dt3, ts1, ts2, tm, n) VALUES (11, 1, 0, 2, 1, 5, -1, 1.1, 1.1, 1.1, 1.15, 'héllo', 'ça', 'text ü', 'v', 'жд', '2021-03-04', '1969-12-31', '2021-03-04 05:06:07', '2021-03-04 05:06:07.123456', '1970-01-01 00:00:00.5', '2021-03-04 05:06:07', '2038-01-01 00:00:00.125', '10:11:12', 1), (12, -1, 1, 255, 0, 0, 127, -0.5, 3.4e38, 1e-300, -99999.99, '', '', '', '', '', '0000-00-00', '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '-01:00:00', 2), (13, NULL, 1, NULL, NULL, NULL, -128, NULL, NULL, 0, NULL, NULL, NULL, NULL, 'z', NULL, NULL, '2020-00-15', NULL, '2020-05-00 01:02:03', '1999-12-31 23:59:59.999', NULL, '1970-01-01 00:00:01', NULL, NULL), (14, 2, 0, 128, 1, 32767, 0, 1e20, -1.5e-7, -0.0, 0.01, 'a\'b', 'ÿ', REPEAT('é', 40), 'ab', 'ёЖ', '9999-12-31', '1000-01-01', '1000-01-01 00:00:00', '9999-12-31 23:59:59.999999', '2020-02-29 12:00:00.001', '2001-01-01 00:00:00', '2020-02-29 12:00:00.999', '838:59:59', 4);
INSERT INTO convs (id) VALUES (15);
UPDATE convs SET b1 = 0, r1 = 2.25, c1 = 'new', d1 = '0000-00-00', ts2 = '2022-02-02 02:02:02' WHERE id = 1;
UPDATE convs SET b6 = 1, d2 = '2020-01-01', s5 = 'Ђ' WHERE id = 2;
DELETE FROM convs WHERE id = 3;
ALTER TABLE convs MODIFY COLUMN b3 TINYINT(1) UNSIGNED DEFAULT 1, MODIFY COLUMN r2 DOUBLE;
INSERT INTO convs (id, b6, d2) VALUES (31, 1, '0000-00-00');
UPDATE convs SET n = n + 1;
SET SESSION sql_mode = DEFAULT;
