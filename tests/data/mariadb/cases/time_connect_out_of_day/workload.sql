-- connect-mode TIME outside a day (negative, 24 h and more) in nullable columns; snapshot and binlog
-- @set time.precision.mode=connect
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE tc (id INT PRIMARY KEY, t TIME, t3 TIME(3), t6 TIME(6));
INSERT INTO tc VALUES (1, '-00:00:01', '-25:00:00.001', '24:00:00'), (2, '23:59:59', '00:00:00.000', '23:59:59.999999');
-- @section stream
INSERT INTO tc VALUES (3, '-00:00:01', '-25:00:00.001', '24:00:00');
INSERT INTO tc VALUES (4, '-838:59:59', '838:59:59.999', '-00:00:00.000001');
UPDATE tc SET t = '12:00:00' WHERE id = 3;
DELETE FROM tc WHERE id = 4;
