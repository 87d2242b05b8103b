-- databases that are not captured, present at snapshot time and changed while streaming
-- @section pre
CREATE DATABASE inventory;
CREATE DATABASE zother;
CREATE DATABASE aother;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'a');
CREATE TABLE zother.z1 (id INT PRIMARY KEY, w INT);
INSERT INTO zother.z1 VALUES (1, 1);
CREATE TABLE aother.a1 (id INT PRIMARY KEY);
-- @section stream
INSERT INTO t VALUES (2, 'b');
ALTER TABLE zother.z1 ADD COLUMN x INT;
INSERT INTO zother.z1 VALUES (2, 2, 2);
USE zother;
CREATE TABLE z2 (id INT PRIMARY KEY);
ALTER TABLE inventory.t ADD COLUMN w INT;
USE inventory;
INSERT INTO t VALUES (3, 'c', 3);
DROP DATABASE aother;
