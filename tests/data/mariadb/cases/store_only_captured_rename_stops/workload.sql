-- store.only.captured.tables.ddl=true: a table left out of the snapshot's schema, renamed into table.include.list,
-- is announced by a schema change without table changes (source.table the new name), and its first row stops
-- Debezium (schema isn't known to this connector, inconsistent.schema.handling.mode=fail); the emulator stops
-- likewise. Recorded with the harness; @quiet before the failing row so that the records before it are delivered.
-- @set schema.history.internal.store.only.captured.tables.ddl=true
-- @set table.include.list=inventory.cap1,inventory.cap4,inventory.debezium_signal
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
RENAME TABLE nocap1 TO cap4;
-- @quiet
INSERT INTO cap4 VALUES (9, 9);
