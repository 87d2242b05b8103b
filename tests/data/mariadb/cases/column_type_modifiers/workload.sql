-- Case column_type_modifiers (campaign mariadb seed 43000: sqlglot could not parse FLOAT UNSIGNED and the emulator
-- stopped on the snapshot's DDL): Debezium's type names keep the written modifiers, "FLOAT UNSIGNED", "<type>
-- UNSIGNED ZEROFILL" (ZEROFILL implies UNSIGNED), "INT SIGNED", "CHAR BINARY" (stream DDL as written; the snapshot
-- reads SHOW CREATE TABLE, which MariaDB normalizes), seen in schema changes and column.propagate.source.type.
-- @set column.propagate.source.type=.*
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE zf (id INT NOT NULL PRIMARY KEY, a INT SIGNED, b CHAR(10) BINARY, c VARCHAR(5) BINARY, d TINYINT(3) ZEROFILL, e BIGINT UNSIGNED ZEROFILL, f FLOAT UNSIGNED, g FLOAT(7,3) ZEROFILL, h DECIMAL(5,2) ZEROFILL, i DOUBLE SIGNED, j REAL UNSIGNED);
INSERT INTO zf VALUES (1, 5, 'bin', 'vb', 7, 18446744073709551615, 3.5, 1.5, 12.5, 2.5, 4.25);
-- @section stream
INSERT INTO zf VALUES (2, 5, 'x', 'y', 255, 0, 0, 0.001, 999.99, 0, 0);
ALTER TABLE zf ADD COLUMN k SMALLINT ZEROFILL, MODIFY i DOUBLE UNSIGNED ZEROFILL, ADD COLUMN l INT SIGNED, ADD COLUMN m CHAR(4) BINARY, ADD COLUMN n FLOAT(6,2) UNSIGNED;
INSERT INTO zf VALUES (3, 3, 'z', 'w', 1, 1, 1, 1, 1, 1, 1, 42, -1, 'bn', 2.5);
