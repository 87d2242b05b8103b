-- Case snapshot_override_excluded_order (diffcamp8, session 14; campaign seed 74001, written small by hand):
-- snapshot.select.statement.overrides whose result is not the captured columns in order: `SELECT *` of a table
-- with a column.exclude.list column (t1), and the columns listed in another order (t2), each with its ORDER BY.
-- Debezium runs the statement as written and takes the columns by name, so the records come in the statement's
-- order (t1: 3, 2, 1; t2: by n descending). The emulator wrapped such a statement as a derived table, whose ORDER
-- BY MariaDB drops: ascending order (1, 2, 3). It now runs the statement as written and picks the columns from
-- each row.
-- @set column.exclude.list=inventory\.t1\.secret
-- @set snapshot.select.statement.overrides=inventory.t1,inventory.t2
-- @set snapshot.select.statement.overrides.inventory.t1=SELECT * FROM inventory.t1 ORDER BY id DESC
-- @set snapshot.select.statement.overrides.inventory.t2=SELECT n, v, id FROM inventory.t2 ORDER BY n DESC
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t1 (id INT NOT NULL PRIMARY KEY, a VARCHAR(10), secret VARCHAR(10), b DECIMAL(6,2));
INSERT INTO t1 VALUES (1, 'one', 's1', 1.25), (2, NULL, 's2', NULL), (3, 'three', NULL, -3.5);
CREATE TABLE t2 (id INT NOT NULL PRIMARY KEY, v VARCHAR(250), n INT);
INSERT INTO t2 VALUES (1, 'x', 30), (2, REPEAT('y', 250), 10), (3, NULL, 20);
-- @section stream
INSERT INTO t1 VALUES (4, 'four', 's4', 4);
UPDATE t2 SET n = 5 WHERE id = 1;
