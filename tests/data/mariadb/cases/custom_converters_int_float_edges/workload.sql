-- TinyIntOneToBooleanConverter (no selector: every TINYINT(1), keys included) beside JdbcSinkDataTypesConverter with
-- treat.real.as.double=false: TINYINT(1) ZEROFILL / UNSIGNED ZEROFILL, TINYINT without a length, TINYINT(3) stay
-- integers; selector.boolean on BIGINT/MEDIUMINT UNSIGNED/INT ZEROFILL/SMALLINT (Number.intValue() > 0: 2^32 and
-- 2^31 are false, the binlog's signed MEDIUMINT 16777215 false, JDBC's true); selector.real on DOUBLE/FLOAT(M,D)/
-- DOUBLE(M,D)/REAL narrowed to float: a DOUBLE 1e300 (its default too) is Infinity, 1e-45 the smallest float.
-- The emulator crashed on the overflow (session 12). Recorded with the harness (MySqlConnector on MariaDB).
-- @set converters=boolean,jdbc
-- @set boolean.type=io.debezium.connector.binlog.converters.TinyIntOneToBooleanConverter
-- @set jdbc.type=io.debezium.connector.binlog.converters.JdbcSinkDataTypesConverter
-- @set jdbc.selector.boolean=inventory\.t1\.j.*
-- @set jdbc.selector.real=inventory\.t1\.q.*
-- @set jdbc.treat.real.as.double=false
-- @set provide.transaction.metadata=false
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t1 (id TINYINT(1) NOT NULL, a TINYINT(1) ZEROFILL, b TINYINT(1) UNSIGNED ZEROFILL, c TINYINT, d TINYINT(3), e BOOL NOT NULL DEFAULT 0, j1 BIGINT, j2 TINYINT(1) NOT NULL DEFAULT 2, j3 MEDIUMINT UNSIGNED, j4 INT ZEROFILL, q1 DOUBLE NOT NULL DEFAULT 1e300, q2 FLOAT(10,3) DEFAULT 1.125, q3 DOUBLE(8,2), PRIMARY KEY (id, e));
INSERT INTO t1 VALUES (1, 1, 1, 1, 1, 1, 4294967296, 1, 16777215, 7, 1.5, 2.5, 3.25), (0, 0, 0, 0, 0, 0, -1, 0, 0, 0, -1e-300, -0.001, -0.01), (-1, 9, 255, -128, 127, 1, 2147483648, -5, 1, 1, 0, NULL, NULL);
-- @section stream
INSERT INTO t1 VALUES (2, 1, 1, 1, 1, 0, 4294967296, 1, 16777215, 7, 1.5, 2.5, 3.25), (3, 0, 0, 0, 0, 0, -1, 0, 0, 0, -1e-300, -0.001, -0.01), (4, 9, 255, -128, 127, 1, 2147483648, -5, 1, 1, 3.4e39, NULL, NULL);
INSERT INTO t1 (id) VALUES (5);
UPDATE t1 SET e = 1 WHERE id = 2;
ALTER TABLE t1 MODIFY COLUMN c TINYINT(1) DEFAULT 1, ADD COLUMN j5 SMALLINT DEFAULT 300, ADD COLUMN q4 REAL DEFAULT 0.1;
INSERT INTO t1 (id, c, j5, q4) VALUES (6, 3, 256, 1e-45);
