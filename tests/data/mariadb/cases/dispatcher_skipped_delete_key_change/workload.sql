-- regression: skipped.operations=d on the binlog connector: deletes are dropped where the binlog is read,
-- but an UPDATE that changes the key still emits its delete (+ tombstone) and create
-- @set skipped.operations=d
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'a'), (2, 'b');
-- @section stream
INSERT INTO t VALUES (3, 'c');
UPDATE t SET id = 10 WHERE id = 1;
DELETE FROM t WHERE id = 2;
UPDATE t SET v = 'c2' WHERE id = 3;
