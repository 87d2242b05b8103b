-- (session 17, campaign seed 88004) statements naming tables of several databases: Debezium's source.table of each
-- schema change joins the tables of its run of consecutive events in one database (DdlChanges.getEventsByDatabase),
-- not the statement's (RENAME TABLE across databases, DROP TABLE of tables in two databases)
-- @set database.include.list=inventory,rnb
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE DATABASE rnb;
CREATE TABLE rnb.m (id INT PRIMARY KEY);
CREATE TABLE t (id INT PRIMARY KEY);
CREATE TABLE a1 (id INT PRIMARY KEY);
CREATE TABLE a2 (id INT PRIMARY KEY);
CREATE TABLE a3 (id INT PRIMARY KEY);
CREATE TABLE x1 (id INT PRIMARY KEY);
CREATE TABLE x2 (id INT PRIMARY KEY);
CREATE TABLE y (id INT PRIMARY KEY);
CREATE TABLE rnb.d1 (id INT PRIMARY KEY);
CREATE TABLE d2 (id INT PRIMARY KEY);
CREATE TABLE d3 (id INT PRIMARY KEY);
INSERT INTO t VALUES (1);
-- @section stream
RENAME TABLE rnb.m TO m2, t TO rnb.moved;
INSERT INTO rnb.moved VALUES (2);
RENAME TABLE a1 TO rnb.a1, a2 TO a2x, a3 TO rnb.a3;
RENAME TABLE x1 TO x1b, x2 TO x2b, y TO rnb.y;
DROP TABLE rnb.d1, d2, d3;
INSERT INTO m2 VALUES (3);
