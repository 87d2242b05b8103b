-- (session 22, campaign seed 194000) a DEFAULT written as a hex or bit literal in streamed DDL: Debezium 3.6.3's
-- DefaultValueParserListener keeps the token's text without its first two characters and its last (unquoteBinary):
-- X'01' -> "01" (a VARBINARY's default then the bytes of "01"), b'101' -> "101", and 0x0A -> "0", 0b11 -> "1". The
-- emulator kept X'01' whole (default "x'01'" as bytes). The snapshot's SHOW CREATE TABLE writes such defaults as
-- strings and numbers, not literals: unchanged
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE hx (id INT PRIMARY KEY, a VARBINARY(8) DEFAULT X'01', n INT DEFAULT 0x0A);
INSERT INTO hx (id) VALUES (1);
-- @section stream
CREATE TABLE hy (id INT PRIMARY KEY, a VARBINARY(8) DEFAULT X'01', b VARBINARY(8) DEFAULT x'aB', c BLOB DEFAULT X'6869', n INT DEFAULT 0x0A, m BIGINT DEFAULT 0x1234, t BIT(8) DEFAULT b'101', u BIT(4) DEFAULT 0b11, v VARCHAR(6) DEFAULT X'6869');
INSERT INTO hy (id) VALUES (1);
ALTER TABLE hx ADD COLUMN d VARBINARY(4) DEFAULT X'FF00' AFTER id, MODIFY n INT DEFAULT 0x1F;
INSERT INTO hx (id) VALUES (2);
INSERT INTO hy (id, a, n) VALUES (2, X'02', 3);
