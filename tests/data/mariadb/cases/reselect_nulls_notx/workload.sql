-- post.processors with Debezium's ReselectColumnsPostProcessor on the MySqlConnector (MariaDB server): binlog rows
-- are full images, so what is read again are NULLs, by primary key: an INSERT whose NULLs the same transaction
-- fills shows the filled values (a DECIMAL, a DATETIME, a BLOB, a TEXT, an ENUM read as the snapshot reads them),
-- an UPDATE whose row the same transaction deletes keeps its NULLs (not found: a warning); a DECIMAL key and a
-- composite key; a DATETIME key (its long of milliseconds matches no row); a table with message.key.columns
-- read by the event key (reselect.use.event.key under the current post.processors.<alias>. convention) and an
-- exclude list; a keyless table (no key Struct: nothing read); column mappers (a value read again skips them: a
-- truncated column's whole text, a hashed one's plain value; a masked NULL prints the mask, never read again).
-- Each row is changed in one transaction only.
-- @set post.processors=r,k
-- @set provide.transaction.metadata=false
-- @set r.type=io.debezium.processors.reselect.ReselectColumnsPostProcessor
-- @set r.reselect.columns.exclude.list=inventory.t_key:.*
-- @set post.processors.k.type=io.debezium.processors.reselect.ReselectColumnsPostProcessor
-- @set post.processors.k.reselect.columns.include.list=inventory.t_key:(n|note)
-- @set post.processors.k.reselect.use.event.key=true
-- @set message.key.columns=inventory.t_key:code
-- @set column.truncate.to.3.chars=inventory.t_map.tr
-- @set column.mask.with.4.chars=inventory.t_map.mk
-- @set column.mask.hash.SHA-256.with.salt.s1=inventory.t_map.hs
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t (id INT PRIMARY KEY, d DECIMAL(10,2), dt DATETIME(3), b BLOB, txt TEXT, e ENUM('x','y'), n INT);
INSERT INTO t VALUES (1, 1.50, '2024-01-02 03:04:05.678', 'ab', 'hello', 'x', 1), (2, NULL, NULL, NULL, NULL, NULL, 2);
CREATE TABLE t_dec (id DECIMAL(6,2), k2 VARCHAR(5), v VARCHAR(20), PRIMARY KEY (id, k2));
CREATE TABLE t_dt (id DATETIME PRIMARY KEY, v VARCHAR(20));
CREATE TABLE t_key (id INT PRIMARY KEY, code VARCHAR(10) NOT NULL UNIQUE, n INT, note VARCHAR(20), other VARCHAR(20));
CREATE TABLE t_nokey (a INT, v VARCHAR(20));
CREATE TABLE t_map (id INT PRIMARY KEY, tr VARCHAR(40), mk VARCHAR(40), hs VARCHAR(40), n INT);
INSERT INTO t_map VALUES (1, 'abcdef', 'secret', 'hashme', 1);
-- @section stream
BEGIN;
INSERT INTO t (id, n) VALUES (10, 1);
UPDATE t SET d = 12.34, dt = '2025-05-06 07:08:09.123', b = 'xyz', txt = 'filled', e = 'y' WHERE id = 10;
COMMIT;
BEGIN;
UPDATE t SET n = 20 WHERE id = 2;
DELETE FROM t WHERE id = 2;
COMMIT;
UPDATE t SET n = 11 WHERE id = 1;
BEGIN;
INSERT INTO t_dec VALUES (1.25, 'a', NULL);
UPDATE t_dec SET v = 'dec filled' WHERE id = 1.25;
COMMIT;
BEGIN;
INSERT INTO t_dt VALUES ('2024-01-02 03:04:05', NULL);
UPDATE t_dt SET v = 'dt filled';
COMMIT;
BEGIN;
INSERT INTO t_key (id, code) VALUES (1, 'c1');
UPDATE t_key SET n = 5, note = 'key filled', other = 'not read' WHERE id = 1;
COMMIT;
BEGIN;
INSERT INTO t_nokey VALUES (1, NULL);
UPDATE t_nokey SET v = 'nokey';
COMMIT;
BEGIN;
INSERT INTO t_map (id, n) VALUES (10, 1);
UPDATE t_map SET tr = 'truncated later', mk = 'masked later', hs = 'hashed later' WHERE id = 10;
COMMIT;
