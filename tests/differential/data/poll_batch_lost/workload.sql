-- Debezium loses its last poll batch when it stops on a value: rows 3 (autocommit) and 4 (same transaction)
-- were queued before the failing rows event and never delivered (recorded); the emulator delivers them.
-- @set time.precision.mode=connect
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE tr (id INT NOT NULL PRIMARY KEY, t TIME(3) NOT NULL, v VARCHAR(10));
INSERT INTO tr VALUES (1, '08:30:15.555', 'a');
-- @section stream
INSERT INTO tr VALUES (2, '08:30:15.555', 'b');
-- @quiet
INSERT INTO tr VALUES (3, '08:30:15.555', 'c');
BEGIN;
INSERT INTO tr VALUES (4, '08:30:15.555', 'd');
INSERT INTO tr VALUES (5, '-00:00:00.001', 'e'), (6, '01:00:00', 'f');
COMMIT;
