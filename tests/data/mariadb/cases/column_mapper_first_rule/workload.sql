-- Case column_mapper_first_rule (campaign mariadb seed 43001, scenario types0 as the minimizer cut it): Debezium's
-- ColumnMappers apply only the first rule a column matches, in the order truncate, mask, column.propagate.source.type,
-- datatype.propagate.source.type, hash: the c1x columns under column.truncate.to.3.chars carry no
-- __debezium.source.column.* parameters. TruncateColumn marks every column that may be longer than 3 (an INT
-- UNSIGNED, a DECIMAL: truncateLength alone, values unchanged) and cuts Strings and byte buffers.
-- @set column.exclude.list=.+\.c3
-- @set column.propagate.source.type=.+\.c[0-4]
-- @set column.truncate.to.3.chars=.+\.c1[0-9]?
-- @set datatype.propagate.source.type=.+
-- @set include.schema.changes=false
-- @set provide.transaction.metadata=true
-- @set schema.name.adjustment.mode=none
-- @set time.precision.mode=adaptive_time_microseconds
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
-- @scenario types0
CREATE TABLE types0 (id INT NOT NULL PRIMARY KEY, c0 TIME(3) NOT NULL, c1 INT UNSIGNED, c2 MEDIUMINT, c3 BIGINT, c4 TINYTEXT, c5 INT DEFAULT 17, c6 CHAR(4) CHARACTER SET utf32, c7 TINYBLOB, c8 VARCHAR(10) CHARACTER SET gbk, c9 DECIMAL(10,2) DEFAULT 1.50, c10 BINARY(1), c11 DECIMAL(12,4) UNSIGNED, c12 CHAR(10) CHARACTER SET utf8mb3, c13 MEDIUMINT UNSIGNED);
INSERT INTO types0 VALUES (1, '08:30:15.555', 4294967295, -8388608, 7, 'tiny', NULL, 'ab', X'00', '中文', 12345.67, X'FF', NULL, 'mb3 é', 16777215), (2, '-00:00:00.001', 4294967295, -8388608, -9223372036854775808, NULL, 42, 'ab', X'', '中文', 0.01, X'FF', 99999999.9999, 'mb3 é', 16777215);
-- @section stream
-- @scenario types0
SET SESSION sql_mode = '';
INSERT INTO types0 VALUES (3, '-00:00:00.001', 4294967295, 8388607, NULL, '', 42, '✓日', X'00', '中文', NULL, X'FF', 99999999.9999, 'mb3 é', 16777215);
INSERT INTO types0 VALUES (4, '08:30:15.555', 0, -8388608, 9223372036854775807, '', 42, '✓日', X'00', '中文', -99999999.99, X'FF', 99999999.9999, 'mb3 é', 16777215), (5, '-00:00:00.001', 4294967295, 8388607, 7, 'tiny', 42, 'ab', X'', '中文', 0, X'FF', NULL, NULL, NULL);
UPDATE types0 SET c0 = (SELECT c0 FROM (SELECT c0 FROM types0 WHERE id = 2) x) WHERE id = 1;
DELETE FROM types0 WHERE id = 4;
DELETE FROM types0 WHERE id = 5;
SET SESSION sql_mode = DEFAULT;
