-- (session 19, xahold) XA PREPARE then XA ROLLBACK: MariaDB writes the rows at XA PREPARE and `XA ROLLBACK 'xid'`
-- later. Debezium 3.6.3 emits the prepared rows when it reads them (its prepareTransaction handler does nothing):
-- the DELETE of a row that still exists and the INSERT of a row that never existed appear as committed. The
-- emulator holds a prepared XA transaction's records until its XA COMMIT and drops them at XA ROLLBACK
-- (deliberate difference: docs/differential-mariadb.md).
-- @set provide.transaction.metadata=false
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20));
INSERT INTO a VALUES (1, 'one'), (2, 'two');
-- @section stream
XA START 'r1';
INSERT INTO a VALUES (10, 'never');
DELETE FROM a WHERE id = 2;
UPDATE a SET v = 'never upd' WHERE id = 1;
XA END 'r1';
XA PREPARE 'r1';
-- @quiet
INSERT INTO a VALUES (100, 'between');
-- @quiet
XA ROLLBACK 'r1';
-- @quiet
XA START X'7861',X'62',3;
INSERT INTO a VALUES (11, 'never 2');
XA END X'7861',X'62',3;
XA PREPARE X'7861',X'62',3;
XA ROLLBACK X'7861',X'62',3;
INSERT INTO a VALUES (101, 'after');
