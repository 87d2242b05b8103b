-- Case time_connect_required_fails_whole_event (campaign seed 14005, minimized): a streamed rows event whose
-- second row has a NOT NULL TIME outside a day (time.precision.mode=connect): Debezium stops before it
-- delivers any row of that event (the first, valid row included); rows of earlier events are delivered.
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
