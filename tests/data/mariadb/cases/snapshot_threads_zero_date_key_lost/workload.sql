-- Case snapshot_threads_zero_date_key_lost (diffcamp7, session 13; campaign seed 68017, the converter scenario's key
-- table): snapshot.max.threads=2 and a zero date in a composite primary key. Debezium 3.6.3 reads its chunk boundaries
-- and the table's maximum key through Connector/J, which turns the zero date into NULL (zeroDateTimeBehavior
-- CONVERT_TO_NULL); zk1's maximum key (1, '0000-00-00') becomes (1, NULL), and no key comparison matches it: the row
-- is never read (nor is a last_in_data_collection emitted). A single-column zero-date key sorts first, in the first
-- chunk, which has no lower bound: zk2 and zk3 keep every row. A deliberate difference (data loss): the emulator reads
-- every row (KNOWN_DIFFERENCES in tests/test_mariadb_conformance_cases.py, strict xfail; README "Differences from
-- Debezium").
-- @set snapshot.max.threads=2
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
SET SESSION sql_mode = '';
CREATE TABLE zk1 (b TINYINT(1) NOT NULL, d DATE NOT NULL, r DOUBLE, PRIMARY KEY (b, d));
INSERT INTO zk1 VALUES (1, '0000-00-00', 1.5), (0, '2020-01-01', NULL);
CREATE TABLE zk2 (d DATE PRIMARY KEY, v INT);
INSERT INTO zk2 VALUES ('2020-01-01', 1), ('0000-00-00', 2), ('2021-05-06', 3);
CREATE TABLE zk3 (dt DATETIME(3) PRIMARY KEY, v INT);
INSERT INTO zk3 VALUES ('2020-01-01 00:00:00', 1), ('0000-00-00 00:00:00', 2);
CREATE TABLE k1 (id INT PRIMARY KEY, v VARCHAR(8));
INSERT INTO k1 VALUES (2, 'two'), (1, 'one');
SET SESSION sql_mode = DEFAULT;
-- @section stream
INSERT INTO k1 VALUES (3, 'three');
