-- Case incremental_unknown_table_types (recorded beside campaign seed 77011).
-- table.exclude.list variant of mariadb seed 77011: an execute-snapshot naming tables outside the filters
-- (excluded by table.exclude.list, in a database outside database.include.list, a view, a regex matching no
-- captured table, a missing table), then, once the signal is handled (SLEEP), DDL on two of them: it
-- describes the JDBC-built tables. Debezium reads each table over JDBC (Connector/J's TYPE_NAME, COLUMN_SIZE,
-- COLUMN_DEF; the unique index "aa" as other.nokey2's key) and writes its CREATE, in signal order; the view, the
-- regex and the missing table get nothing. Also recorded here: the snapshot's CREATE TABLE of wide1, whose
-- `ts ... ON UPDATE current_timestamp()` is autoIncremented and generated (both grammars).
-- @set table.exclude.list=inventory\.wide1
-- @set include.query=true
-- @section pre
CREATE DATABASE inventory;
CREATE DATABASE other;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE kept1 (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO kept1 VALUES (1, 'a');
CREATE TABLE wide1 (
  b INT NOT NULL, a BIGINT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'the a',
  t1 TINYINT(1) DEFAULT 1, tu TINYINT UNSIGNED NOT NULL DEFAULT 7, ti TINYINT, si SMALLINT, mu MEDIUMINT UNSIGNED, mi MEDIUMINT,
  iu INT UNSIGNED ZEROFILL, d1 DECIMAL(10,2) DEFAULT 1.50, du DECIMAL(5,0) UNSIGNED, f1 FLOAT, f2 FLOAT(7,3), db1 DOUBLE, dbl2 DOUBLE(8,2) UNSIGNED,
  bt1 BIT(1), bt10 BIT(10) DEFAULT b'101', dt DATE DEFAULT '2020-01-02', tm TIME(3), dtm DATETIME(6), ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  ts3 TIMESTAMP(3) NULL, yr YEAR, c3 CHAR(3) CHARACTER SET latin1, vc VARCHAR(300) DEFAULT 'it''s', tx TEXT, ttx TINYTEXT, mtx MEDIUMTEXT, ltx LONGTEXT,
  bl BLOB, tbl TINYBLOB, mbl MEDIUMBLOB, lbl LONGBLOB, bn BINARY(4), vb VARBINARY(20), en ENUM('x','y''z') DEFAULT 'x', st SET('p','q'),
  js JSON, g GEOMETRY, pt POINT, gen INT AS (b + 1) VIRTUAL, gens INT AS (b * 3) STORED,
  expr INT DEFAULT (b * 2), cmt INT COMMENT 'com''ment',
  PRIMARY KEY (b, a), KEY ka (a), UNIQUE KEY u1 (si)
) COMMENT 'wide table';
INSERT INTO wide1 (b, si) VALUES (1, 1), (2, 2);
CREATE VIEW v1 AS SELECT id FROM kept1;
CREATE TABLE other.nokey2 (x INT, y VARCHAR(5) NOT NULL, z INT, UNIQUE KEY zz (z, y), UNIQUE KEY aa (y));
INSERT INTO other.nokey2 VALUES (1, 'a', 1);
-- @section incremental
INSERT INTO debezium_signal (id, type, data) VALUES ('incr-1', 'execute-snapshot', '{"data-collections": ["inventory.wide1", "other.nokey2", "inventory.v1", "inventory\\\\.wid.*", "inventory.nosuch"], "type": "incremental"}');
-- the replay waits here until the capture is quiet (the signal handled, whatever the load); the harness runs the
-- section at once, where the SLEEP held the DDL back from Debezium's reads
-- @quiet
SELECT SLEEP(2);
ALTER TABLE wide1 ADD COLUMN z1 INT NOT NULL DEFAULT 3;
ALTER TABLE other.nokey2 MODIFY x BIGINT;
INSERT INTO kept1 VALUES (3, 'c');
