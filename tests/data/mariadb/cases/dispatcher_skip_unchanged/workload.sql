-- regression: skip.messages.without.change on the binlog connector (it reached a missing attribute)
-- @set skip.messages.without.change=true
-- @set column.exclude.list=inventory.t.ignored
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), ignored INT);
INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2);
-- @section stream
UPDATE t SET ignored = 10 WHERE id = 1;
UPDATE t SET v = 'b2', ignored = 20 WHERE id = 2;
START TRANSACTION;
UPDATE t SET ignored = 11 WHERE id = 1;
UPDATE t SET v = 'a2' WHERE id = 1;
COMMIT;
UPDATE t SET id = 3, ignored = 30 WHERE id = 2;
DELETE FROM t WHERE id = 1;
