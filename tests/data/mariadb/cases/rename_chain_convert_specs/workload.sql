-- A RENAME TABLE chain that swaps two tables through a temporary name: Debezium builds each pair's event after
-- the whole statement, so the first pair (b TO tmp, tmp gone at the end) has no table change; CONVERT TO
-- CHARACTER SET among other ALTER specs (the emulator stopped: cannot parse). Beside them: ENUM/SET changes,
-- several specs per ALTER, CREATE TABLE LIKE / AS SELECT, zerofill, unsigned BIGINT keys (precise), hex binary.
-- @set binary.handling.mode=hex
-- @set bigint.unsigned.handling.mode=precise
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE a (id BIGINT UNSIGNED PRIMARY KEY, e ENUM('x','y') DEFAULT 'y', s SET('p','q','r') DEFAULT 'p,r', b BINARY(4), vb VARBINARY(6) DEFAULT 'ab', z DECIMAL(8,3) UNSIGNED ZEROFILL, f FLOAT(7,3) UNSIGNED ZEROFILL, m MEDIUMINT UNSIGNED ZEROFILL DEFAULT 5);
INSERT INTO a VALUES (18446744073709551615, 'x', 'q,r', 'ab', 'xyz', 12.5, 1.25, 16777215), (1, NULL, '', NULL, NULL, NULL, NULL, NULL);
CREATE TABLE b (id INT PRIMARY KEY, v TEXT);
INSERT INTO b VALUES (1, 'b');
-- @section stream
ALTER TABLE a MODIFY e ENUM('x','y','zz') DEFAULT 'zz', MODIFY s SET('p','q','r','t'), ADD COLUMN n INT NOT NULL DEFAULT 4 AFTER id, ALTER COLUMN vb SET DEFAULT 'cd', RENAME COLUMN m TO mm;
INSERT INTO a (id, e, s, b) VALUES (18446744073709551614, 'zz', 't,p', 0x00ff);
UPDATE a SET id = 2 WHERE id = 1;
CREATE TABLE c LIKE b;
INSERT INTO c VALUES (5, 'c');
RENAME TABLE b TO tmp, c TO b, tmp TO c;
INSERT INTO b VALUES (6, 'now b');
INSERT INTO c VALUES (7, 'now c');
CREATE TABLE d AS SELECT id, e, s FROM a;
INSERT INTO d VALUES (3, 'x', 'q');
ALTER TABLE d ADD PRIMARY KEY (id), CONVERT TO CHARACTER SET latin1, ADD CONSTRAINT ck CHECK (id > 0);
UPDATE d SET s = 'r' WHERE id = 3;
