-- schema.history.internal.store.only.captured.tables.ddl=true (props, session 11): the snapshot reads and emits the
-- schema of the captured tables only (and of their databases); streamed DDL of tables outside table.include.list
-- (ALTER, CREATE, DROP, RENAME, CREATE INDEX even on a captured table, another database) is neither emitted nor
-- recorded; a table created outside the list and renamed into it is announced (ALTER) and captured; a multi-table
-- DROP emits the captured table's part. Recorded with the harness (the emulator refused the property before).
-- @set schema.history.internal.store.only.captured.tables.ddl=true
-- @set table.include.list=inventory.cap1,inventory.cap3,inventory.debezium_signal
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE cap1 (id INT PRIMARY KEY, a INT);
CREATE TABLE nocap1 (id INT PRIMARY KEY, a INT);
INSERT INTO cap1 VALUES (1, 1);
INSERT INTO nocap1 VALUES (1, 1);
-- @section stream
INSERT INTO cap1 VALUES (2, 2);
INSERT INTO nocap1 VALUES (2, 2);
ALTER TABLE cap1 ADD COLUMN b INT;
ALTER TABLE nocap1 ADD COLUMN b INT;
CREATE TABLE nocap2 (id INT PRIMARY KEY);
CREATE TABLE cap2 (id INT PRIMARY KEY);
INSERT INTO cap1 VALUES (3, 3, 3);
INSERT INTO nocap1 VALUES (3, 3, 3);
DROP TABLE nocap2;
CREATE INDEX ix_nocap1 ON nocap1 (a);
CREATE INDEX ix_cap1 ON cap1 (a);
RENAME TABLE nocap1 TO nocap1r;
TRUNCATE TABLE nocap1r;
CREATE VIEW v1 AS SELECT * FROM cap1;
INSERT INTO cap1 VALUES (4, 4, 4);
CREATE TABLE nocap3 (id INT PRIMARY KEY, v INT);
RENAME TABLE nocap3 TO cap3;
INSERT INTO cap3 VALUES (1, 1);
CREATE DATABASE otherdb;
CREATE TABLE otherdb.t (id INT PRIMARY KEY);
CREATE TABLE nocap5 (id INT PRIMARY KEY);
DROP TABLE cap1, nocap5;
