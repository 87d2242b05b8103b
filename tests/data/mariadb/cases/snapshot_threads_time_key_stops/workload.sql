-- snapshot.max.threads=2: Debezium's chunked snapshot reads a keyed table's maximum key (and its chunk bounds) with
-- Connector/J's getObject; a TIME key value outside 00:00:00..23:59:59 there ('-01:02:03.45') throws
-- DataReadException ("an invalid TIME value"), a retriable error: the snapshot restarts without end after its
-- schema changes (the held-back last one, CREATE TABLE tk, lost) and before any row.
-- Found by campaign seed 166006 (scenario ddlforms3).
-- @set snapshot.max.threads=2
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE tk (id INT NOT NULL, k1 TIME(2) NOT NULL, a INT, PRIMARY KEY (id, k1));
INSERT INTO tk VALUES (1, '10:00:00', 1), (2, '-01:02:03.45', 2), (3, '11:00:00', 3), (4, '-01:02:03.45', 4);
-- @section stream
INSERT INTO tk VALUES (5, '12:00:00', 5);
