-- Case executable_comment_versions: executable comments whose version Debezium's MySQL lexer does not take
-- (MySqlLexerBase: a `/*!NNNNN` inside is code only for 5+ digits up to 80200). MariaDB 10.11 skips MySQL's
-- 5-digit versions from 50700 up and writes them to the binlog as plain `/* 90000 ... */` comments (t9, t4: both
-- read a utf8mb4 table; Debezium's `ddl` ends at the last code token, without the comment). A MariaDB 6-digit
-- version (t10, `/*!100100 DEFAULT CHARSET=latin1 */`) runs on the server, but Debezium hides it: its table is
-- utf8mb4 to Debezium, whose record then holds U+FFFD for the latin1 'é' (data lost). The emulator models what the
-- server ran (latin1, 'é'): a deliberate difference, kept as a strict expected failure.
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
-- @section stream
CREATE TABLE t9 (id INT PRIMARY KEY, a VARCHAR(5)) /*!90000 DEFAULT CHARSET=latin1 */;
INSERT INTO t9 VALUES (1, 'é');
CREATE TABLE t10 (id INT PRIMARY KEY, a VARCHAR(5)) /*!100100 DEFAULT CHARSET=latin1 */;
INSERT INTO t10 VALUES (1, 'é');
CREATE TABLE t4 (id INT PRIMARY KEY, a VARCHAR(5)) /*!99999 DEFAULT CHARSET=latin1 */;
INSERT INTO t4 VALUES (1, 'é');
