-- mariadb seed 77011 with schema.history.internal.store.only.captured.tables.ddl=true: the dispatcher drops the
-- CREATE Debezium builds for a table outside table.include.list (no record), and the table is skipped
-- @set table.include.list=inventory\.kept1,inventory\.debezium_signal
-- @set schema.history.internal.store.only.captured.tables.ddl=true
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE kept1 (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO kept1 VALUES (1, 'a');
CREATE TABLE alter1 (id INT NOT NULL PRIMARY KEY, v VARCHAR(20) DEFAULT 'd', n INT);
INSERT INTO alter1 VALUES (1, 'one', 1), (2, 'two', 2);
-- @section stream
INSERT INTO kept1 VALUES (2, 'b');
-- @section incremental
INSERT INTO debezium_signal (id, type, data) VALUES ('incr-1', 'execute-snapshot', '{"data-collections": ["inventory.alter1", "inventory.kept1"], "type": "incremental"}');
