-- (session 24) a server whose global sql_mode holds ANSI_QUOTES: Debezium 3.6's binlog snapshot reads sql_mode
-- (BinlogSnapshotChangeEventSource: "so DDL parser knows whether ANSI_QUOTES is active") into its system variables,
-- and the MySqlConnector's DdlNormalizer then leaves double-quoted text alone (identifiers under ANSI_QUOTES).
-- SHOW CREATE TABLE prints the snapshot's tables with double-quoted names; streamed DDL written by sessions with
-- and without ANSI_QUOTES.
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE a1 (id INT PRIMARY KEY, v VARCHAR(10) DEFAULT 'd''q', e ENUM('x', 'y"z') DEFAULT 'x' COMMENT 'c"m');
INSERT INTO a1 VALUES (1, 'one', 'x'), (2, NULL, 'y"z');
SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',ANSI_QUOTES');
-- @section stream
INSERT INTO a1 VALUES (3, 'three', 'y"z');
SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',ANSI_QUOTES');
CREATE TABLE "a2" ("id" INT PRIMARY KEY, "w" VARCHAR(10) DEFAULT 'q');
INSERT INTO "a2" VALUES (1, 'w1');
ALTER TABLE "a1" ADD COLUMN "n" INT DEFAULT 5 AFTER "id";
INSERT INTO "a1" ("id", "v") VALUES (4, 'four');
SET SESSION sql_mode = REPLACE(@@SESSION.sql_mode, 'ANSI_QUOTES', '');
CREATE TABLE a3 (id INT PRIMARY KEY, s VARCHAR(10) DEFAULT "dq");
INSERT INTO a3 (id) VALUES (1);
ALTER TABLE a1 ADD COLUMN m VARCHAR(5) DEFAULT "k";
INSERT INTO a1 (id) VALUES (5);
