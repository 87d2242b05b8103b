-- (session 22) CREATE SEQUENCE (MariaDB-only, not in Debezium's MySQL grammar) while streaming: Debezium's
-- MySqlConnector stops on it ("DDL statement couldn't be parsed"); a sequence made before the snapshot changes
-- nothing (the snapshot reads base tables only). The emulator ignored the statement and went on (2 extra records)
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE plain (id INT PRIMARY KEY, v INT);
INSERT INTO plain VALUES (1, 1);
CREATE SEQUENCE s0 START WITH 10 INCREMENT BY 5;
SELECT NEXTVAL(s0);
-- @section stream
CREATE SEQUENCE s1 START WITH 10 INCREMENT BY 5;
INSERT INTO plain VALUES (2, 2);
SELECT NEXTVAL(s1);
DROP SEQUENCE s1;
INSERT INTO plain VALUES (3, 3);
