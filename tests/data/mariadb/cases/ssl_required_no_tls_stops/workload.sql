-- database.ssl.mode=required against a MariaDB without TLS (props, session 11): Debezium 3.6.3 stops at its connection
-- validation (Connector/J: "SSL Connection required, but not provided by server") before any record; the emulator
-- stops at start too (exit 1, one line: TLS connection failed). Recorded with the harness.
-- @set database.ssl.mode=required
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t (id INT PRIMARY KEY);
INSERT INTO t VALUES (1);
-- @section stream
INSERT INTO t VALUES (2);
