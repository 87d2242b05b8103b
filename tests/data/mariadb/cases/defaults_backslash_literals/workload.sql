-- String defaults with backslash escapes: Debezium keeps the literal's text between the quotes as written, in the
-- snapshot (SHOW CREATE TABLE's form) and in a streamed ALTER (the user's form): a\\b, it\'s, tab\there.
-- (A double-quoted "x""y" in the ALTER was left out: Debezium's ddl text showed it single-quoted, not understood.)
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE e (id INT PRIMARY KEY, a VARCHAR(10) DEFAULT 'a\\b', b VARCHAR(10) DEFAULT 'it\'s', c VARCHAR(10) DEFAULT 'x"y');
INSERT INTO e (id) VALUES (1);
-- @section stream
ALTER TABLE e ADD COLUMN a2 VARCHAR(10) DEFAULT 'a\\b', ADD COLUMN b2 VARCHAR(10) DEFAULT 'it\'s', ADD COLUMN d2 VARCHAR(10) DEFAULT 'tab\there';
INSERT INTO e (id) VALUES (2);
