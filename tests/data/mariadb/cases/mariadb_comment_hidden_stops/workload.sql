-- (session 22) a MariaDB executable comment `/*M!NNNNNN ... */` holding an ALTER: MariaDB runs it, Debezium's
-- MySQL lexer reads it as a plain comment (the statement is empty to it), so its schema keeps 2 columns and it stops
-- on the next row of 3 ("internal schema size 2, but row size 3"); the emulator hides it alike and stops there too
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE plain (id INT PRIMARY KEY, v INT);
INSERT INTO plain VALUES (1, 1);
-- @section stream
/*M!100100 ALTER TABLE plain ADD COLUMN m1 INT DEFAULT 3 */;
INSERT INTO plain (id, v) VALUES (2, 2);
INSERT INTO plain (id, v) VALUES (3, 3);
