-- time.precision.mode=connect with message.key.columns on a nullable TIME column: the key field is required, so an
-- out-of-day TIME there (null in a value field) stops Debezium in the snapshot ("Unexpected value for JDBC type 92
-- and column g TIME(2)"), as a NOT NULL column does; the emulator went on with a null key field. Found by campaign
-- seed 64006 (session 12, keynulls scenario). Recorded with the harness (MySqlConnector on MariaDB).
-- @set time.precision.mode=connect
-- @set message.key.columns=inventory\.k:g
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE a (id INT PRIMARY KEY, t TIME);
INSERT INTO a VALUES (1, '-01:00:00'), (2, '10:00:00');
CREATE TABLE k (id INT PRIMARY KEY, g TIME(2) DEFAULT '10:11:12.50', v INT);
INSERT INTO k VALUES (1, NULL, 1), (2, '10:00:00', 2), (3, '-01:00:00', 3), (4, '11:00:00', 4);
-- @section stream
INSERT INTO k VALUES (5, '12:00:00', 5);
