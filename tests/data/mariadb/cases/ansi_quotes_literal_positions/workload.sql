-- (session 24) under a global sql_mode with ANSI_QUOTES (read by Debezium's snapshot), which double-quoted texts
-- Debezium's MySQL grammar cannot parse as identifiers (skip.unparseable.ddl: each such statement skipped)
-- @set schema.history.internal.skip.unparseable.ddl=true
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE b1 (id INT PRIMARY KEY);
SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',ANSI_QUOTES');
-- @section stream
INSERT INTO b1 VALUES (1);
SET SESSION sql_mode = REPLACE(@@SESSION.sql_mode, 'ANSI_QUOTES', '');
CREATE TABLE b2 (id INT PRIMARY KEY, s VARCHAR(10) DEFAULT "dq");
CREATE TABLE b3 (id INT PRIMARY KEY, s VARCHAR(10) COMMENT "cm");
CREATE TABLE b4 (id INT PRIMARY KEY, e ENUM("a", "b"));
CREATE TABLE b5 (id INT PRIMARY KEY) COMMENT "tc";
CREATE TABLE b6 (id INT PRIMARY KEY, s VARCHAR(10) CHARACTER SET "utf8mb4");
ALTER TABLE b1 ADD COLUMN s VARCHAR(5) DEFAULT "d2";
ALTER TABLE b1 COMMENT = "t2";
SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',ANSI_QUOTES');
CREATE TABLE "b7" ("id" INT PRIMARY KEY, "s" VARCHAR(10) DEFAULT 'x' COMMENT 'c', "e" SET('p', 'q') DEFAULT 'p');
ALTER TABLE "b7" RENAME COLUMN "s" TO "s2", ADD INDEX "ix" ("e");
CREATE TABLE "b""8" (id INT PRIMARY KEY);
INSERT INTO b1 (id) VALUES (2);
INSERT INTO b7 (id) VALUES (1);
INSERT INTO `b"8` VALUES (1);
INSERT INTO b2 (id) VALUES (1);
INSERT INTO b4 (id) VALUES (1);
