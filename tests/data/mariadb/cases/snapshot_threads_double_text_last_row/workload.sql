-- Case snapshot_threads_double_text_last_row (diffcamp7, session 13; campaign seed 69002, fails before): snapshot.max.threads=2 and a
-- table whose last snapshot row holds doubles outside [1e-3, 1e7) (DECIMAL under decimal.handling.mode=double, DOUBLE,
-- FLOAT): the emulator's forked readers send a table's last row to the parent unconverted, and its Java-text doubles
-- (orjson.Fragment) could not be pickled: the snapshot stopped (TypeError). Debezium prints them as Java does.
-- @set snapshot.max.threads=2
-- @set decimal.handling.mode=double
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE d1 (id INT PRIMARY KEY, dec1 DECIMAL(30,10), f DOUBLE, r FLOAT);
INSERT INTO d1 VALUES (1, 1.5, 2.5, 0.5), (2, 12345678901234567890.0123456789, 1e300, 3.4e38);
CREATE TABLE d2 (id INT PRIMARY KEY, f DOUBLE);
INSERT INTO d2 VALUES (1, 1e-5), (2, 0.0001), (3, -2.5e20);
CREATE TABLE d3 (n INT, f DOUBLE);
INSERT INTO d3 VALUES (1, 1e7), (2, 123.25);
-- @section stream
INSERT INTO d2 VALUES (4, 1e10);
