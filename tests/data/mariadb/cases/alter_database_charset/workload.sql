-- (session 18, campaign draw ddl18) ALTER DATABASE ... CHARACTER SET: Debezium's CreateAndAlterDatabaseParserListener
-- keeps a database's default charset from the CHARACTER SET option of CREATE and ALTER DATABASE (a COLLATE option
-- alone leaves it), and a CREATE TABLE without a charset of its own takes it (tableChanges' defaultCharsetName and
-- the columns' charsetName). The emulator kept the charset of the CREATE DATABASE. Values are ASCII where the
-- server's charset and the model's could differ.
-- @set database.include.list=inventory,inv2
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO a VALUES (1, 'ñé');
-- @section stream
ALTER DATABASE inventory CHARACTER SET latin1 COLLATE latin1_swedish_ci;
CREATE TABLE b1 (id INT PRIMARY KEY, v VARCHAR(10), x TEXT);
INSERT INTO b1 VALUES (1, 'ascii', 'text');
ALTER DATABASE inventory CHARACTER SET = utf8mb3;
CREATE TABLE b2 (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO b2 VALUES (1, 'ñé');
ALTER SCHEMA `inventory` DEFAULT COLLATE latin1_bin;
CREATE TABLE b3 (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO b3 VALUES (1, 'ascii');
ALTER DATABASE inventory DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci;
CREATE TABLE b4 (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO b4 VALUES (1, 'ñé ✓');
ALTER TABLE a ADD COLUMN w VARCHAR(5);
INSERT INTO a VALUES (2, 'çà', 'ü');
CREATE DATABASE inv2 COLLATE latin1_bin;
CREATE TABLE inv2.c (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO inv2.c VALUES (1, 'ascii');
CREATE DATABASE inv3 CHARACTER SET latin1;
ALTER DATABASE inv3 CHARACTER SET utf8mb4;
