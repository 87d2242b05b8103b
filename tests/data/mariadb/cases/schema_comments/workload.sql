-- include.schema.comments=true (MySqlConnector on MariaDB): a column comment is the doc of its field schema, key and
-- value, snapshot and stream, after MODIFY/ADD COLUMN ... COMMENT; the literal kept as written ('' stays doubled), an
-- empty comment an empty doc; ALTER TABLE ... COMMENT changes the table comment in tableChanges. Recorded with the harness.
-- @set include.schema.comments=true
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE c1 (id INT PRIMARY KEY COMMENT 'the key', a INT COMMENT 'a "quoted" comment, it''s ünïcode', b VARCHAR(10) NOT NULL DEFAULT 'b', n DECIMAL(10,2) COMMENT 'money') COMMENT 'table comment';
INSERT INTO c1 VALUES (1, 1, 'one', 1.5);
-- @section stream
INSERT INTO c1 VALUES (2, 2, 'two', 2.5);
ALTER TABLE c1 MODIFY COLUMN b VARCHAR(10) NOT NULL DEFAULT 'b' COMMENT 'added later';
INSERT INTO c1 VALUES (3, 3, 'three', 3.5);
ALTER TABLE c1 ADD COLUMN d INT COMMENT 'new column';
INSERT INTO c1 VALUES (4, 4, 'four', 4.5, 4);
CREATE TABLE c2 (id INT PRIMARY KEY COMMENT 'c2 key', v VARCHAR(5) COMMENT '') COMMENT 'c2 table';
INSERT INTO c2 VALUES (1, 'x');
ALTER TABLE c1 MODIFY COLUMN a INT;
ALTER TABLE c1 COMMENT 'changed table comment';
UPDATE c1 SET a = 10 WHERE id = 1;
DELETE FROM c1 WHERE id = 2;
