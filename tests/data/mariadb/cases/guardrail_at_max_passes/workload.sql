-- (session 24) guardrail.collections.max=4 with guardrail.collections.limit.action=fail on the MySqlConnector:
-- Debezium counts, at task start, the BASE TABLEs of every non-system database (store.only.captured.tables.ddl
-- false: all the tables whose schemas the history keeps, whatever table.include.list says): debezium_signal, t1, t2
-- and otherdb.o1 (the view not counted): 4. At the maximum: captured as without it.
-- @set guardrail.collections.max=4
-- @set guardrail.collections.limit.action=fail
-- @set table.include.list=inventory\.t1
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t1 (id INT PRIMARY KEY, v VARCHAR(10));
CREATE TABLE t2 (id INT PRIMARY KEY);
CREATE VIEW v1 AS SELECT * FROM t1;
CREATE DATABASE otherdb;
CREATE TABLE otherdb.o1 (id INT PRIMARY KEY);
INSERT INTO t1 VALUES (1, 'one');
-- @section stream
INSERT INTO t1 VALUES (2, 'two');
