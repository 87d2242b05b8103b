-- (session 17) columns added after ALTER TABLE ... [DEFAULT] CHARSET=latin1 (in the same statement or a later one):
-- the server stores them in latin1; Debezium's model keeps the table's utf8mb4 (defaultCharsetName and the columns'
-- charsetName, recorded) and decodes their values as UTF-8: 'ñé' becomes U+FFFD U+FFFD. A value lost: the emulator
-- decodes with the server's charset (a deliberate difference, strict expected failure); CREATE TABLE ... DEFAULT
-- CHARSET=latin1 is read right by both.
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE cs (id INT PRIMARY KEY, v VARCHAR(10));
CREATE TABLE cs2 (id INT PRIMARY KEY, v VARCHAR(10));
-- @section stream
ALTER TABLE cs CHARACTER SET = latin1, ADD COLUMN l VARCHAR(8);
INSERT INTO cs VALUES (1, 'ñé', 'ñé');
ALTER TABLE cs2 DEFAULT CHARSET=latin1;
ALTER TABLE cs2 ADD COLUMN l2 VARCHAR(8), ADD COLUMN t2 TEXT;
INSERT INTO cs2 VALUES (1, 'ñé', 'ñé', 'çà');
CREATE TABLE cs3 (id INT PRIMARY KEY, v VARCHAR(10)) DEFAULT CHARSET=latin1;
INSERT INTO cs3 VALUES (1, 'ñé');
