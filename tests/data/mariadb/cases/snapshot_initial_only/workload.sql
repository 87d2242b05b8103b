-- Case snapshot_initial_only: the initial snapshot, then nothing of the stream section is captured
-- (Debezium's task idles, the emulator exits 0).
-- @set snapshot.mode=initial_only
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, price DECIMAL(10,2), d DATETIME(3));
INSERT INTO items VALUES (1, 'one', 1.50, '2024-01-02 03:04:05.678'), (2, 'two', NULL, NULL);
CREATE TABLE empty_one (id INT PRIMARY KEY);
-- @section stream
INSERT INTO items VALUES (3, 'three', 3.00, NULL);
UPDATE items SET name = 'uno' WHERE id = 1;
