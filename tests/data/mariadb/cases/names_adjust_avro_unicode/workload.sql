-- Case names_adjust_avro_unicode: schema.name.adjustment.mode and field.name.adjustment.mode avro_unicode on the binlog
-- connector: table and column names with '-', spaces, '$', non-ASCII, leading digits; snapshot,
-- stream, ALTER ADD COLUMN. Found refused (then mis-keyed rows) and implemented from this recording.
-- @set schema.name.adjustment.mode=avro_unicode
-- @set field.name.adjustment.mode=avro_unicode
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE `my-table` (`id` INT PRIMARY KEY, `first-name` VARCHAR(20), `1st` INT, `späti` VARCHAR(10), `a b` INT, `_x` INT, `ok_name` INT);
INSERT INTO `my-table` VALUES (1, 'a', 1, 'ü', 2, 3, 4);
CREATE TABLE `café` (`ключ` INT PRIMARY KEY, `Größe` DECIMAL(5,2), `x$y` INT);
INSERT INTO `café` VALUES (1, 1.25, 7);
CREATE TABLE `2nd_table` (id INT PRIMARY KEY, `val-1` INT);
INSERT INTO `2nd_table` VALUES (1, 1);
-- @section stream
INSERT INTO `my-table` VALUES (2, 'b', 2, 'ß', 3, 4, 5);
UPDATE `café` SET `Größe` = 2.5 WHERE `ключ` = 1;
ALTER TABLE `my-table` ADD COLUMN `new-col` INT;
INSERT INTO `my-table` VALUES (3, 'c', 3, 'ä', 4, 5, 6, 7);
DELETE FROM `2nd_table` WHERE id = 1;
