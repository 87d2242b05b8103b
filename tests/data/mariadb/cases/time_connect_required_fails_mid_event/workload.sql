-- Case time_connect_required_fails_mid_event (campaign seed 14005, minimized; recorded again in session 24): a
-- streamed rows event whose second row has a NOT NULL TIME outside a day (time.precision.mode=connect): Debezium
-- converts and queues the event's rows one by one and stops at that row; the first, valid row is delivered (5 of
-- 5 recordings in session 24), unless Debezium's last poll batch is lost (the session 10 recording of this case,
-- now tests/differential/data/failing_event_row_lost); rows of earlier events are delivered.
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
