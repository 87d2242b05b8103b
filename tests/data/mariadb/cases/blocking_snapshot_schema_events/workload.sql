-- Case blocking_snapshot_schema_events: a blocking execute-snapshot naming a table outside table.include.list
-- beside a captured one. Debezium's blocking snapshot reads the captured table only and first writes its schema
-- events (readTableStructure on demand): DROP TABLE and CREATE TABLE of that table, marked `true` (no SET /
-- database statements); the emulator wrote none.
-- @set table.include.list=inventory\.kept1,inventory\.debezium_signal
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE kept1 (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO kept1 VALUES (1, 'a'), (2, 'b');
CREATE TABLE alter1 (id INT NOT NULL PRIMARY KEY, v VARCHAR(20) DEFAULT 'd', n INT);
INSERT INTO alter1 VALUES (1, 'one', 1), (2, 'two', 2);
-- @section stream
INSERT INTO kept1 VALUES (3, 'c');
-- @quiet
INSERT INTO debezium_signal (id, type, data) VALUES ('blk-1', 'execute-snapshot', '{"data-collections": ["inventory.alter1", "inventory.kept1"], "type": "blocking"}');
-- @quiet
INSERT INTO kept1 VALUES (4, 'd');
