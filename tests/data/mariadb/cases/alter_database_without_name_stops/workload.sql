-- (session 18, campaign draw ddl18) ALTER DATABASE without a database name (MySQL and MariaDB take it: the session's
-- database): Debezium 3.6.3's MySQL grammar wants the name ("mismatched input 'CHARACTER'") and the MySqlConnector
-- stops at the statement; the emulator had gone on.
-- @section pre
CREATE DATABASE inventory;
CREATE TABLE inventory.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE inventory.plain (id INT PRIMARY KEY, a VARCHAR(10));
INSERT INTO inventory.plain VALUES (1, 'x');
-- @section stream
INSERT INTO plain VALUES (2, 'y');
-- @quiet
ALTER DATABASE CHARACTER SET = latin1;
CREATE TABLE after_it (id INT PRIMARY KEY, v VARCHAR(5));
INSERT INTO after_it VALUES (1, 'a');
INSERT INTO plain VALUES (3, 'z');
