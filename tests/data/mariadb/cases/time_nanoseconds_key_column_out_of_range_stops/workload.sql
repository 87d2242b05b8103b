-- time.precision.mode=nanoseconds with message.key.columns on a nullable DATETIME(6): a value outside NanoTimestamp's
-- int64 range in the key column (2262-04-12) stops Debezium at that streamed row; in range values (edges) pass.
-- @set time.precision.mode=nanoseconds
-- @set message.key.columns=inventory.nk:dt
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE nk (id INT PRIMARY KEY, dt DATETIME(6), n INT);
INSERT INTO nk VALUES (1, '1677-09-22 00:00:00', 1), (2, '2262-04-11 23:47:16.854775', 2);
-- @section stream
INSERT INTO nk VALUES (3, '2000-01-01 00:00:00', 3);
UPDATE nk SET n = 20 WHERE id = 2;
-- @quiet
INSERT INTO nk VALUES (5, '2262-04-12 00:00:00', 5);
INSERT INTO nk VALUES (6, '2000-01-01 00:00:00', 6);
