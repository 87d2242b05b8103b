-- (session 17) a system-versioned table created while streaming: Debezium's MySqlConnector stops on the CREATE TABLE
-- (DDL statement couldn't be parsed) after the records before it, and so does the emulator
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE plain (id INT PRIMARY KEY, v INT);
INSERT INTO plain VALUES (1, 1);
-- @section stream
INSERT INTO plain VALUES (2, 2);
CREATE TABLE sv (id INT PRIMARY KEY, v VARCHAR(10)) WITH SYSTEM VERSIONING;
INSERT INTO sv VALUES (1, 'a');
UPDATE sv SET v = 'b' WHERE id = 1;
INSERT INTO plain VALUES (3, 3);
