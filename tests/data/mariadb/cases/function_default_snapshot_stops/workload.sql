-- (session 22, campaign seed 193000) a function default written in parentheses, DEFAULT (CONCAT('x', 'y')), on a table
-- the snapshot reads: MariaDB's SHOW CREATE TABLE prints it bare (`DEFAULT concat('x','y')`), which Debezium's MySQL
-- grammar does not take (only NOW() and its synonyms, literals, or an expression in parentheses): the
-- MySqlConnector's snapshot stops before any record. The emulator read the table and went on
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE plain (id INT PRIMARY KEY, v INT);
INSERT INTO plain VALUES (1, 1);
CREATE TABLE fd (id INT PRIMARY KEY, c VARCHAR(9) DEFAULT (CONCAT('x', 'y')), t DATETIME DEFAULT NOW());
INSERT INTO fd (id) VALUES (1);
-- @section stream
INSERT INTO plain VALUES (2, 2);
INSERT INTO fd (id) VALUES (2);
