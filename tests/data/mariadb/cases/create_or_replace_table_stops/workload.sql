-- (session 22) CREATE OR REPLACE TABLE (MariaDB-only): the MySqlConnector stops on it ("Multiple parsing errors"); the
-- emulator replaced the table and went on
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t (id INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
-- @section stream
CREATE OR REPLACE TABLE t (id INT PRIMARY KEY, w DATE);
INSERT INTO t (id) VALUES (2);
