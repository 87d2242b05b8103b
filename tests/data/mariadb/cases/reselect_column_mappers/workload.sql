-- post.processors beside column mappers on the MySqlConnector: Debezium converts a value it reads again with the
-- column's own converter, without column.truncate.to.N.chars / column.mask.hash, so an INSERT whose NULLs its
-- transaction fills shows the whole text of a truncated column and the plain value of a hashed one; a masked
-- column prints the mask for NULL (not read again).
-- @set post.processors=r
-- @set r.type=io.debezium.processors.reselect.ReselectColumnsPostProcessor
-- @set column.truncate.to.3.chars=inventory.t.tr
-- @set column.mask.with.4.chars=inventory.t.mk
-- @set column.mask.hash.SHA-256.with.salt.s1=inventory.t.hs
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t (id INT PRIMARY KEY, tr VARCHAR(40), mk VARCHAR(40), hs VARCHAR(40), n INT);
INSERT INTO t VALUES (1, 'abcdef', 'secret', 'hashme', 1);
-- @section stream
BEGIN;
INSERT INTO t (id, n) VALUES (10, 1);
UPDATE t SET tr = 'truncated later', mk = 'masked later', hs = 'hashed later' WHERE id = 10;
COMMIT;
