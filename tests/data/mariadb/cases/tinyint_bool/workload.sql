-- converters=boolean with Debezium's TinyIntOneToBooleanConverter (binlog package name), selector on t1 and t3,
-- length.checker default (true): TINYINT(1) signed/unsigned and BOOLEAN become boolean, TINYINT(2) and t2 stay
-- integers; NULLs, defaults, negative and >1 values, snapshot and stream, ALTERs that change the columns, a key
-- column. Recorded with the harness (MySqlConnector on MariaDB).
-- @set converters=boolean
-- @set boolean.type=io.debezium.connector.binlog.converters.TinyIntOneToBooleanConverter
-- @set boolean.selector=inventory.t1.*,inventory\.t3\..*
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t1 (id INT PRIMARY KEY, a TINYINT(1), b TINYINT(1) UNSIGNED, c TINYINT(2), d BOOLEAN, e TINYINT(1) NOT NULL DEFAULT 1, f TINYINT(1) DEFAULT 0, g TINYINT, h TINYINT(1) NOT NULL, i TINYINT(1) DEFAULT 5);
INSERT INTO t1 VALUES (1, 1, 1, 1, 1, 0, 1, 1, 0, NULL), (2, 0, 0, 0, 0, 1, 0, 0, 1, 1), (3, -1, 255, 2, 2, 7, -128, 127, -5, 0), (4, NULL, NULL, NULL, NULL, 0, NULL, NULL, 1, -1);
INSERT INTO t1 (id, h) VALUES (5, 2);
CREATE TABLE t2 (id INT PRIMARY KEY, a TINYINT(1), d BOOLEAN DEFAULT TRUE);
INSERT INTO t2 VALUES (1, 1, 0), (2, -1, 3), (3, NULL, NULL);
CREATE TABLE t3 (id INT, k TINYINT(1) NOT NULL, v VARCHAR(5), PRIMARY KEY (id, k));
INSERT INTO t3 VALUES (1, 0, 'x'), (1, 1, 'y'), (2, 9, 'z');
-- @section stream
INSERT INTO t1 VALUES (11, 1, 1, 1, 1, 0, 1, 1, 0, 3), (12, -1, 255, 2, 2, 7, -128, 127, -5, NULL), (13, NULL, NULL, NULL, NULL, 0, NULL, NULL, 1, 0);
INSERT INTO t1 (id, h) VALUES (14, 0);
UPDATE t1 SET a = 0, b = 128, e = 0 WHERE id = 1;
DELETE FROM t1 WHERE id = 2;
INSERT INTO t2 VALUES (11, 1, 0), (12, -1, 3), (13, NULL, NULL);
INSERT INTO t3 VALUES (3, 0, 'a'), (3, 1, 'b'), (4, -3, 'c');
UPDATE t3 SET k = 0 WHERE id = 2;
DELETE FROM t3 WHERE id = 1 AND k = 1;
ALTER TABLE t1 MODIFY COLUMN c TINYINT(1) DEFAULT 1;
INSERT INTO t1 (id, c, h) VALUES (15, 2, 1), (16, 0, 0);
ALTER TABLE t1 MODIFY COLUMN a INT;
ALTER TABLE t1 ADD COLUMN j BOOL NOT NULL DEFAULT TRUE, ADD COLUMN k BOOLEAN, ADD COLUMN l TINYINT(1) UNSIGNED DEFAULT 200;
INSERT INTO t1 (id, a, h, j, k, l) VALUES (17, 5, 1, 0, 1, NULL), (18, -1, 0, DEFAULT, DEFAULT, DEFAULT);
ALTER TABLE t1 CHANGE COLUMN d dd TINYINT(3);
INSERT INTO t1 (id, dd, h) VALUES (19, 4, 1);
CREATE TABLE t4 (id INT PRIMARY KEY, b BOOLEAN NOT NULL DEFAULT FALSE, t TINYINT(1));
INSERT INTO t4 VALUES (1, 1, 1);
CREATE TABLE t3b (id INT PRIMARY KEY, b BOOLEAN);
RENAME TABLE t3b TO t3x;
INSERT INTO t3x VALUES (1, 1);
UPDATE t2 SET a = 0 WHERE id = 1;
