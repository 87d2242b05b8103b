-- key_null_prints_default without transaction metadata: the binlog line path (rows straight into lines) must
-- not take an UPDATE whose key text is equal because a NULL key field prints its default (NULL -> default is a key change).
-- @set provide.transaction.metadata=false
-- @set message.key.columns=inventory\.mk:g;inventory\.md:d,t
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE mk (id INT PRIMARY KEY, g VARCHAR(8) DEFAULT 'dflt', v INT);
INSERT INTO mk VALUES (1, NULL, 1), (2, 'two', 2);
CREATE TABLE md (id INT PRIMARY KEY, d DECIMAL(6,2) DEFAULT 1.50, t DATETIME(3) DEFAULT '2020-01-02 03:04:05.678', v INT);
INSERT INTO md VALUES (1, NULL, NULL, 1), (2, 2.25, '2021-01-01 00:00:00', 2);
-- @section stream
INSERT INTO mk VALUES (3, NULL, 3);
UPDATE mk SET g = NULL WHERE id = 2;
UPDATE mk SET v = 30 WHERE id = 3;
UPDATE mk SET g = 'dflt' WHERE id = 3;
DELETE FROM mk WHERE id = 1;
INSERT INTO md VALUES (3, NULL, NULL, 3);
UPDATE md SET d = NULL WHERE id = 2;
UPDATE md SET d = 1.50 WHERE id = 3;
DELETE FROM md WHERE id = 1;
