-- (session 19, xahold) an XA transaction prepared before the snapshot, committed while streaming: the snapshot
-- does not read its rows (not committed), and the binlog position the snapshot takes is after its XA PREPARE
-- group, so the stream never reads them either: its XA COMMIT group carries no rows. Debezium emits nothing for
-- it; the emulator holds nothing and emits nothing (the rows are missing from both: docs/differential-mariadb.md).
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20));
INSERT INTO a VALUES (1, 'one'), (2, 'two');
XA START 's1';
INSERT INTO a VALUES (10, 'prepared');
UPDATE a SET v = 'prepared upd' WHERE id = 1;
XA END 's1';
XA PREPARE 's1';
-- @section stream
INSERT INTO a VALUES (100, 'stream');
-- @quiet
XA COMMIT 's1';
-- @quiet
INSERT INTO a VALUES (101, 'after');
