-- converters=jdbc with Debezium's JdbcSinkDataTypesConverter (binlog package name): selector.boolean on TINYINT(1),
-- BOOLEAN, TINYINT(2) columns -> INT16 1/0; selector.real on REAL/FLOAT/DOUBLE -> FLOAT64 (treat.real.as.double
-- default); selector.string on CHAR/VARCHAR/TEXT -> STRING with the column's character set as a parameter; NULLs,
-- defaults, snapshot and stream, ALTERs. Recorded with the harness (MySqlConnector on MariaDB).
-- @set converters=jdbc
-- @set jdbc.type=io.debezium.connector.binlog.converters.JdbcSinkDataTypesConverter
-- @set jdbc.selector.boolean=inventory\.t1\.b.*
-- @set jdbc.selector.real=inventory\.t1\.r.*
-- @set jdbc.selector.string=inventory\.t1\.s.*,inventory.t2.s1
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t1 (id INT PRIMARY KEY, b1 TINYINT(1), b2 BOOLEAN NOT NULL DEFAULT TRUE, b3 TINYINT(2) UNSIGNED DEFAULT 0, b4 TINYINT(1) DEFAULT -1, r1 REAL, r2 FLOAT DEFAULT 1.1, r3 DOUBLE NOT NULL DEFAULT 2.5, r4 FLOAT(7,2), s1 VARCHAR(20), s2 CHAR(5) CHARACTER SET latin1 DEFAULT 'ab', s3 TEXT, s4 VARCHAR(10) NOT NULL DEFAULT 'x', n INT, x TINYINT(1)) DEFAULT CHARSET=utf8mb4;
INSERT INTO t1 VALUES (1, 1, 0, 2, -1, 1.1, 1.1, 1.1, 1.15, 'héllo', 'ça', 'text ü', 'v', 1, 1), (2, -1, 1, 255, 0, -0.5, 3.4e38, 1e-300, -99999.99, '', '', '', '', 2, -1), (3, NULL, 1, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 'z', NULL, NULL);
INSERT INTO t1 (id) VALUES (4);
CREATE TABLE t2 (id INT PRIMARY KEY, s1 VARCHAR(5) CHARACTER SET latin1, s2 VARCHAR(5)) DEFAULT CHARSET=latin1;
INSERT INTO t2 VALUES (1, 'é', 'é'), (2, NULL, 'a');
-- @section stream
INSERT INTO t1 VALUES (11, 1, 0, 2, -1, 1.1, 1.1, 1.1, 1.15, 'héllo', 'ça', 'text ü', 'v', 1, 1), (12, -1, 1, 255, 0, -0.5, 3.4e38, 1e-300, -99999.99, '', '', '', '', 2, -1), (13, NULL, 1, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 'z', NULL, NULL);
INSERT INTO t1 (id) VALUES (14);
UPDATE t1 SET b1 = 0, r1 = 2.25, s1 = 'new' WHERE id = 1;
DELETE FROM t1 WHERE id = 2;
INSERT INTO t2 VALUES (11, 'é', 'é'), (12, NULL, 'a');
ALTER TABLE t1 ADD COLUMN b5 BOOL DEFAULT FALSE, ADD COLUMN r5 REAL NOT NULL DEFAULT 0.25, ADD COLUMN s5 VARCHAR(8) CHARACTER SET latin1;
INSERT INTO t1 (id, b5, r5, s5) VALUES (15, 1, 7.5, 'àb'), (16, NULL, -1.5, NULL);
ALTER TABLE t1 MODIFY COLUMN b1 INT, MODIFY COLUMN s1 VARCHAR(30) CHARACTER SET latin1;
INSERT INTO t1 (id, b1, s1) VALUES (17, 5, 'ñ');
CREATE TABLE t3 (id INT PRIMARY KEY, b BOOLEAN, r REAL, s VARCHAR(5));
INSERT INTO t3 VALUES (1, 1, 1.5, 's');
