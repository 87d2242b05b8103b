-- converters=jdbc with JdbcSinkDataTypesConverter's selector.string on text columns of every kind and non-UTF-8
-- character sets: in the snapshot Debezium's BinlogFieldReader reads only CHAR, VARCHAR and TEXT (by typeName)
-- as the column's bytes (decoded as UTF-8 by the converter: U+FFFD for latin1/cp1251 letters); TINYTEXT,
-- MEDIUMTEXT, LONGTEXT are Connector/J's String (right text); in the stream every one is the binlog's bytes.
-- Found by campaign draw workloads_mariadb_conv (session 12). Recorded with the harness (MySqlConnector on MariaDB).
-- @set converters=jdbc
-- @set jdbc.type=io.debezium.connector.binlog.converters.JdbcSinkDataTypesConverter
-- @set jdbc.selector.string=inventory\.t1\..*
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t1 (id VARCHAR(4) PRIMARY KEY, a TINYTEXT CHARACTER SET cp1251, b MEDIUMTEXT CHARACTER SET latin1, c LONGTEXT CHARACTER SET cp1251, d TEXT CHARACTER SET cp1251, e VARCHAR(10) CHARACTER SET latin1, f CHAR(4) CHARACTER SET cp1251, g TINYTEXT, h MEDIUMTEXT CHARACTER SET utf8mb3) DEFAULT CHARSET=utf8mb4;
INSERT INTO t1 VALUES ('1', 'жд', 'ça', 'Ђё', 'жд', 'ça', 'жд', 'ü€', 'ñ'), ('2', '', '', '', '', '', '', '', ''), ('3', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- @section stream
INSERT INTO t1 VALUES ('11', 'жд', 'ça', 'Ђё', 'жд', 'ça', 'жд', 'ü€', 'ñ');
UPDATE t1 SET a = 'Ж', b = 'ÿ' WHERE id = '1';
