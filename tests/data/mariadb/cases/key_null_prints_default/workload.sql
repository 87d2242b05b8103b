-- message.key.columns on nullable columns with a default (a VARCHAR, a DECIMAL, a DATETIME): a NULL in the
-- key prints the column's default (the key converter's replace.null.with.default), in the key, the
-- tombstone's key and the __debezium.oldkey / newkey headers; a key change from NULL to the default is one.
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
