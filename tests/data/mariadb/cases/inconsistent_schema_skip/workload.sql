-- inconsistent.schema.handling.mode=skip with store.only.captured.tables.ddl=true: a table left out of the
-- snapshot's schema, renamed into table.include.list, is announced by a schema change without table changes; its
-- rows (insert, update, delete; alone and in a transaction with a known table's rows) are skipped, the known
-- table's rows go on. gtid.source.filter.dml.events=false (the MySqlConnector does not read MariaDB GTIDs).
-- @set schema.history.internal.store.only.captured.tables.ddl=true
-- @set table.include.list=inventory.cap1,inventory.cap4,inventory.debezium_signal
-- @set inconsistent.schema.handling.mode=skip
-- @set gtid.source.filter.dml.events=false
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
INSERT INTO cap4 VALUES (9, 9);
INSERT INTO cap1 VALUES (3, 3);
BEGIN;
INSERT INTO cap1 VALUES (4, 4);
INSERT INTO cap4 VALUES (10, 10), (11, 11);
UPDATE cap1 SET a = 40 WHERE id = 4;
COMMIT;
UPDATE cap4 SET a = 99 WHERE id = 9;
DELETE FROM cap4 WHERE id = 1;
ALTER TABLE cap4 ADD COLUMN b INT;
INSERT INTO cap4 VALUES (12, 12, 12);
INSERT INTO cap1 VALUES (5, 5);
