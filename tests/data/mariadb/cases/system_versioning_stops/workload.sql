-- (session 17) a system-versioned table (MariaDB-only syntax) in the snapshot: Debezium's MySqlConnector stops on its
-- SHOW CREATE TABLE (DDL statement couldn't be parsed) before any record, and so does the emulator
-- (it went on before session 17: the stream below leaves the table alone)
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE plain (id INT PRIMARY KEY, v INT);
INSERT INTO plain VALUES (1, 1);
CREATE TABLE sv (id INT PRIMARY KEY, v VARCHAR(10)) WITH SYSTEM VERSIONING;
INSERT INTO sv VALUES (1, 'a');
-- @section stream
INSERT INTO plain VALUES (2, 2);
