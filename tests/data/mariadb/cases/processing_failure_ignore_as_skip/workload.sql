-- event.processing.failure.handling.mode=ignore (the enum's transitional value): as skip in Debezium 3.6.3 (its
-- EventDispatcher and RowDeserializers treat every value but fail/warn as skip); the workload of case
-- processing_failure_skip_drops_rows.
-- @set event.processing.failure.handling.mode=ignore
-- @set time.precision.mode=connect
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE tr (id INT NOT NULL PRIMARY KEY, t TIME(3) NOT NULL, v VARCHAR(10));
INSERT INTO tr VALUES (1, '08:30:15.555', 'a'), (2, '25:00:00', 'b'), (3, '01:00:00', 'c');
-- @section stream
INSERT INTO tr VALUES (4, '08:30:15.555', 'd'), (5, '-00:00:00.001', 'e'), (6, '01:00:00', 'f');
UPDATE tr SET v = 'x' WHERE id IN (1, 2, 3);
UPDATE tr SET t = '30:00:00' WHERE id = 3;
UPDATE tr SET t = '02:00:00' WHERE id = 2;
DELETE FROM tr WHERE id IN (1, 3, 5);
INSERT INTO tr VALUES (7, '09:00:00', 'g');
