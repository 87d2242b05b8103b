-- (session 22, campaign seed 200002) ALTER TABLE ... ALTER COLUMN ... SET DEFAULT with a hex or bit literal: Debezium
-- 3.6.3's AlterTableParserListener.extractLiteralValue has no branch for them and builds `sign + null`, the text
-- "null" (a VARBINARY's default is then the bytes of "null"); the emulator used the literal's digits
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE sd (id INT PRIMARY KEY, a VARBINARY(8) DEFAULT 'z', s VARCHAR(8) DEFAULT 'q');
INSERT INTO sd (id) VALUES (1);
-- @section stream
ALTER TABLE sd ALTER COLUMN a SET DEFAULT X'02';
INSERT INTO sd (id) VALUES (2);
ALTER TABLE sd ALTER COLUMN s SET DEFAULT X'6869';
INSERT INTO sd (id) VALUES (3);
ALTER TABLE sd ALTER COLUMN a SET DEFAULT 'y';
INSERT INTO sd (id) VALUES (4);
