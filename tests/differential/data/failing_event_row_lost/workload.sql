-- Debezium's lost last batch holds the valid rows of the failing event too: the session 10 recording of case
-- time_connect_required_fails_mid_event, where Debezium did not deliver row 3 (the event's first row, before the
-- NOT NULL TIME outside a day); the emulator delivers it and the harness accepts it as a 1-record lost batch.
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
INSERT INTO tr VALUES (3, '08:30:15.555', 'c'), (4, '-00:00:00.001', 'd'), (5, '01:00:00', 'e');
INSERT INTO tr VALUES (6, '09:00:00', 'f');
