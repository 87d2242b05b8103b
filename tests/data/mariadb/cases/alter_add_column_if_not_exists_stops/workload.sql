-- (session 22) ALTER TABLE ... ADD COLUMN IF NOT EXISTS (MariaDB-only: Debezium's MySQL grammar has no IF [NOT] EXISTS in
-- ALTER TABLE; DROP COLUMN IF EXISTS and MODIFY COLUMN IF EXISTS recorded alike): the MySqlConnector stops on it
-- ("DDL statement couldn't be parsed"); the emulator applied it and went on
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t (id INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
-- @section stream
ALTER TABLE t ADD COLUMN IF NOT EXISTS x INT DEFAULT 4;
INSERT INTO t (id) VALUES (2);
