-- (session 17, campaign seed 90003) an execute-snapshot signal naming a captured table, then one outside the filters:
-- the second's CREATE (ddl null, read over JDBC) carries the offset's source block, whose table is the first table's,
-- the last one whose chunk records were sent, not the signal table's
-- @set table.include.list=inventory\.t1,inventory\.debezium_signal
-- @set snapshot.mode=no_data
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t1 (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t1 VALUES (1, 'a'), (2, 'b'), (3, 'c');
CREATE TABLE t2 (id INT PRIMARY KEY, w INT);
INSERT INTO t2 VALUES (1, 1);
-- @section stream
INSERT INTO t1 VALUES (4, 'd');
-- @section incremental
INSERT INTO debezium_signal (id, type, data) VALUES ('incr-1', 'execute-snapshot', '{"data-collections": ["inventory.t1", "inventory.t2"], "type": "incremental"}');
