-- Expression defaults in parentheses written in the stream (CREATE TABLE, ADD COLUMN, ALTER ... SET DEFAULT): Debezium's
-- MySQL grammar records none (defaultValueExpression null, no schema default), also for (5), ('abc'), (-1); a
-- table created before the snapshot reads MariaDB's SHOW CREATE TABLE, which prints constants without them.
-- (A function default such as (CONCAT(...)) in a table read by the snapshot is printed 'DEFAULT concat(...)' by
-- MariaDB and Debezium's grammar stops on it; not kept here.) Found by campaign seed 48006 (ddlforms).
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE s (id INT PRIMARY KEY, c INT DEFAULT (5), d VARCHAR(5) DEFAULT ('abc'), e INT DEFAULT (-1), f INT NOT NULL DEFAULT (7));
INSERT INTO s (id) VALUES (1);
-- @section stream
CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(12) DEFAULT (CONCAT('x', 'y)')), b INT DEFAULT (1 + 2), c INT DEFAULT (5), d VARCHAR(5) DEFAULT ('abc'), e INT DEFAULT (-1), f INT NOT NULL DEFAULT (7));
INSERT INTO t (id) VALUES (1);
ALTER TABLE t ADD COLUMN g VARCHAR(12) DEFAULT (CONCAT('x', 'y)')) COMMENT 'a\'b \\ (c', ADD COLUMN h INT DEFAULT (2 * 3);
ALTER TABLE t ALTER COLUMN b SET DEFAULT (4 + 4);
INSERT INTO t (id) VALUES (2);
INSERT INTO s (id) VALUES (2);
