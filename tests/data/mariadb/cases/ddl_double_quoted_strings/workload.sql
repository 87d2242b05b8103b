-- (session 23, diffcamp31; noticed by session 22) Debezium 3.6's MySqlConnector runs every statement through its
-- DdlNormalizer before its MySQL grammar: a double-quoted string becomes single-quoted (delimiters replaced, each
-- ' inside doubled, nothing else: "d\"q" -> 'd\"q', "b""c" -> 'b""c'), and twelve window-function names used as a
-- table name, a column name before its type or a label get backticks (lag, rank, lead, ntile). The schema
-- change records carry the normalized text. The emulator showed the statement as written.
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE en (id INT PRIMARY KEY, e ENUM("a", "d\"q", "x'y", "b""c", 'm"n') DEFAULT "d\"q", s SET("p", "q\"r", "s't") DEFAULT "p", c VARCHAR(10) DEFAULT "v\"w" COMMENT "c\"m");
INSERT INTO en VALUES (1, 'd"q', 'q"r,p', 'x'), (2, "x'y", "s't", "y\"z"), (3, 'b"c', '', NULL), (4, 'm"n', NULL, NULL);
-- @section stream
INSERT INTO en VALUES (11, 'd"q', 'q"r,p', 'x'), (12, "x'y", "s't", "y\"z"), (13, 'b"c', '', NULL), (14, 'm"n', NULL, NULL);
CREATE TABLE en2 (id INT PRIMARY KEY, e ENUM("a", "d\"q", "x'y", "b""c", 'm"n') DEFAULT "d\"q", s SET("p", "q\"r", "s't") DEFAULT "q\"r", c VARCHAR(10) DEFAULT "v\"w" COMMENT "c\"m");
INSERT INTO en2 VALUES (1, 'd"q', 'q"r,p', 'x'), (2, "x'y", "s't", "y\"z"), (3, 'b"c', '', NULL);
ALTER TABLE en ADD COLUMN f ENUM("g\"h", "i") DEFAULT "g\"h" AFTER id, MODIFY s SET("p", "q\"r", "s't", "u\"v") DEFAULT "u\"v";
INSERT INTO en (id, f, s) VALUES (21, 'g"h', 'u"v,p'), (22, 'i', DEFAULT);
ALTER TABLE en ALTER COLUMN c SET DEFAULT "k\"l";
INSERT INTO en (id) VALUES (23);
CREATE TABLE lag (id INT PRIMARY KEY, rank INT, lead VARCHAR(5) DEFAULT "x\"y", `ntile` CHAR(3) DEFAULT 'a"b');
INSERT INTO lag (id, rank) VALUES (1, 2);
ALTER TABLE lag DROP COLUMN `ntile`, ADD COLUMN ntile  BIGINT DEFAULT 7, ADD COLUMN d2 DATE;
INSERT INTO lag (id, rank, ntile) VALUES (2, 3, 4);
ALTER TABLE en COMMENT = "t\"c 'q'";
INSERT INTO en (id) VALUES (24);
