-- @section pre
CREATE DATABASE inventory;
CREATE TABLE inventory.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE inventory.plain (id INT PRIMARY KEY, a VARCHAR(10));
INSERT INTO inventory.plain VALUES (1, 'x');
-- @section stream
INSERT INTO plain VALUES (2, 'y');
-- @quiet
CREATE TABLE withuuid (id INT PRIMARY KEY, u UUID);
INSERT INTO withuuid VALUES (1, '123e4567-e89b-12d3-a456-426614174000');
INSERT INTO plain VALUES (3, 'z');
