-- ZeroDateFallbackConverter's first-call guard (see zero_date_fallback_first_call) after statements that do or do
-- not rebuild the table's schema: ALTER TABLE ... COMMENT, RENAME TABLE, ALTER TABLE ADD/DROP INDEX rebuild it (the
-- next value is the fallback), CREATE INDEX and TRUNCATE do not. Session 12 (diffcamp6). Recorded with the harness
-- (MySqlConnector on MariaDB).
-- @set converters=zd
-- @set zd.type=io.debezium.connector.binlog.converters.ZeroDateFallbackConverter
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE a (id INT PRIMARY KEY, d DATE);
CREATE TABLE b (id INT PRIMARY KEY, d DATE);
CREATE TABLE c (id INT PRIMARY KEY, d DATE);
CREATE TABLE e (id INT PRIMARY KEY, d DATE);
CREATE TABLE f (id INT PRIMARY KEY, d DATE);
INSERT INTO a VALUES (1, '2020-01-01'), (2, '2020-01-02');
INSERT INTO b VALUES (1, '2020-01-01'), (2, '2020-01-02');
INSERT INTO c VALUES (1, '2020-01-01'), (2, '2020-01-02');
INSERT INTO e VALUES (1, '2020-01-01'), (2, '2020-01-02');
INSERT INTO f VALUES (1, '2020-01-01'), (2, '2020-01-02');
-- @section stream
CREATE INDEX a_ix ON a (d);
INSERT INTO a VALUES (3, '2021-01-01');
ALTER TABLE b COMMENT 'x';
INSERT INTO b VALUES (3, '2021-01-01');
TRUNCATE TABLE c;
INSERT INTO c VALUES (3, '2021-01-01');
RENAME TABLE e TO e2;
INSERT INTO e2 VALUES (3, '2021-01-01');
ALTER TABLE f ADD INDEX f_ix (d), ALGORITHM=INPLACE;
INSERT INTO f VALUES (3, '2021-01-01');
ALTER TABLE f DROP INDEX f_ix;
UPDATE f SET d = '2022-02-02' WHERE id = 3;
