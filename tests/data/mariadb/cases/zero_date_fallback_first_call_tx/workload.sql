-- ZeroDateFallbackConverter's first-call guard: its lambda answers the first call after the table's schema is built
-- with the fallback when the column has a default (meant for TableSchemaBuilder's default-value call, which is made
-- only for a non-null default). With DEFAULT NULL (every nullable column of SHOW CREATE TABLE) the first value
-- converted after each build is the fallback (NULL policy: null) whatever the row holds: the snapshot's first row,
-- the first image after an ALTER of the table (a NULL in it uses the call up too; an UPDATE's before image first).
-- NOT NULL columns with a non-null default are called at the build: unaffected. Found by campaign seed 63025
-- (session 12). Recorded with the harness (MySqlConnector on MariaDB).
-- @set converters=zd
-- @set zd.type=io.debezium.connector.binlog.converters.ZeroDateFallbackConverter
-- @set provide.transaction.metadata=true
-- @section pre
CREATE DATABASE inventory;
USE inventory;
SET SESSION sql_mode = '';
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t1 (id INT PRIMARY KEY, d DATE, dt DATETIME, ts TIMESTAMP NULL, dn DATE NOT NULL DEFAULT '2020-01-02', dz DATE DEFAULT '0000-00-00', n INT);
INSERT INTO t1 VALUES (1, '2021-03-04', '2021-03-04 05:06:07', '2021-03-04 05:06:07', '2021-03-04', '2021-03-04', 1), (2, '2022-01-01', '2022-01-01 00:00:00', '2022-01-01 00:00:00', '2022-01-01', '2022-01-01', 2);
CREATE TABLE t2 (id INT PRIMARY KEY, d DATE, dt DATETIME(6));
INSERT INTO t2 VALUES (1, NULL, NULL), (2, '2021-03-04', '2021-03-04 05:06:07.5');
CREATE TABLE t3 (id INT PRIMARY KEY, d DATE);
-- @section stream
SET SESSION sql_mode = '';
INSERT INTO t1 VALUES (3, '2023-01-01', '2023-01-01 01:01:01', '2023-01-01 01:01:01', '2023-01-01', '2023-01-01', 3);
ALTER TABLE t1 ADD COLUMN x INT;
UPDATE t1 SET n = 10 WHERE id = 1;
ALTER TABLE t1 MODIFY COLUMN x BIGINT;
INSERT INTO t1 (id, n) VALUES (4, 4);
INSERT INTO t1 VALUES (5, '2024-01-01', '2024-01-01 01:01:01', '2024-01-01 01:01:01', '2024-01-01', '2024-01-01', 5, 5);
INSERT INTO t3 VALUES (1, '2025-05-05'), (2, '2025-05-06');
INSERT INTO t2 VALUES (3, '2021-03-05', '2021-03-05 00:00:00.25');
DELETE FROM t1 WHERE id = 2;
