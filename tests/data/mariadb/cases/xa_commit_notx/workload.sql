-- (session 19, xahold) XA transactions committed after XA PREPARE: MariaDB writes their rows at XA PREPARE (a GTID
-- group ending in an XA_PREPARE event) and `XA COMMIT 'xid'` as a group of its own later. Autocommit transactions
-- commit between PREPARE and COMMIT; two prepared XA transactions commit in the reverse order; one XA commits
-- with ONE PHASE (an ordinary transaction in the binlog); an XA whose xid is given as X'..',X'..',n.
-- @set provide.transaction.metadata=false
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20));
CREATE TABLE b (id INT PRIMARY KEY, n BIGINT);
INSERT INTO a VALUES (1, 'one'), (2, 'two'), (5, 'five'), (6, 'six');
INSERT INTO b VALUES (1, 100);
-- @section stream
XA START 'x1';
INSERT INTO a VALUES (10, 'xa1');
UPDATE a SET v = 'xa1 upd' WHERE id = 1;
DELETE FROM a WHERE id = 2;
INSERT INTO b VALUES (10, 1000);
XA END 'x1';
XA PREPARE 'x1';
-- @quiet
INSERT INTO a VALUES (100, 'between');
UPDATE b SET n = 101 WHERE id = 1;
BEGIN;
INSERT INTO a VALUES (101, 'between tx');
INSERT INTO b VALUES (101, 1);
COMMIT;
-- @quiet
XA COMMIT 'x1';
-- @quiet
XA START X'7861',X'62',3;
INSERT INTO a VALUES (20, 'xa3');
UPDATE a SET v = 'xa3 upd' WHERE id = 5;
XA END X'7861',X'62',3;
XA PREPARE X'7861',X'62',3;
-- @quiet
XA START 'x4';
INSERT INTO b VALUES (40, 4);
DELETE FROM a WHERE id = 6;
XA END 'x4';
XA PREPARE 'x4';
-- @quiet
INSERT INTO a VALUES (102, 'between 2');
-- @quiet
XA COMMIT 'x4';
-- @quiet
XA COMMIT X'7861',X'62',3;
-- @quiet
XA START 'x2';
INSERT INTO a VALUES (30, 'one phase');
UPDATE b SET n = 102 WHERE id = 1;
XA END 'x2';
XA COMMIT 'x2' ONE PHASE;
INSERT INTO a VALUES (103, 'after');
