-- gen_seed7's workload (emulator.testing.workloads_mariadb, seed 7) without transaction metadata: rows take the binlog line path
-- @set provide.transaction.metadata=false
-- @set bigint.unsigned.handling.mode=long
-- @set binary.handling.mode=bytes
-- @set decimal.handling.mode=precise
-- @set time.precision.mode=adaptive_time_microseconds
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
-- @scenario types0
CREATE TABLE types0 (id INT NOT NULL PRIMARY KEY, c0 MEDIUMINT, c1 FLOAT NOT NULL, c2 MEDIUMINT UNSIGNED, c3 DATETIME(6) DEFAULT '2020-01-01 10:00:00', c4 BINARY(4), c5 SMALLINT UNSIGNED NOT NULL, c6 INT UNSIGNED, c7 DECIMAL(12,4) UNSIGNED, c8 TIMESTAMP NULL DEFAULT NULL, c9 MEDIUMTEXT, c10 DATETIME, c11 YEAR);
INSERT INTO types0 VALUES (1, -8388608, 1.5, 16777215, '2024-02-29 13:45:30.123456', X'01020304', 65535, 4294967295, NULL, '2024-02-29 13:45:30', 'medium', '2024-02-29 13:45:30', NULL), (2, 8388607, -3.25, 16777215, NULL, X'01020304', 0, 0, 99999999.9999, NULL, 'medium', '1000-01-01 00:00:00', NULL);
-- @scenario keys1
CREATE TABLE keys1 (a INT NOT NULL, b VARCHAR(8) NOT NULL, c INT);
INSERT INTO keys1 VALUES (1, 'x', 1), (2, 'y', 2);
-- @scenario alter2
CREATE TABLE alter2 (id INT NOT NULL PRIMARY KEY, v VARCHAR(20) DEFAULT 'd', n INT);
INSERT INTO alter2 VALUES (1, 'one', 1), (2, 'two', 2);
-- @scenario noise3
CREATE TABLE noise3 (id INT PRIMARY KEY, v INT);
-- @scenario tx4
CREATE TABLE tx4 (id INT PRIMARY KEY, v VARCHAR(10));
CREATE TABLE tx4_nk (a INT, b TEXT);
-- @section stream
-- @scenario types0
SET SESSION sql_mode = '';
INSERT INTO types0 VALUES (3, 8388607, 0, 16777215, '1960-06-15 00:00:00.000001', NULL, 0, 0, 99999999.9999, '2024-02-29 13:45:30', 'medium', '0000-00-00 00:00:00', NULL);
INSERT INTO types0 VALUES (4, 8388607, -3.25, 16777215, '1960-06-15 00:00:00.000001', X'00', 0, 4294967295, 99999999.9999, '2038-01-19 03:14:07', 'medium', '1000-01-01 00:00:00', NULL), (5, 8388607, -3.25, 16777215, '2024-02-29 13:45:30.123456', X'00', 0, 4294967295, NULL, '2024-02-29 13:45:30', 'medium', '9999-12-31 23:59:59', NULL);
UPDATE types0 SET c0 = (SELECT c0 FROM (SELECT c0 FROM types0 WHERE id = 2) x) WHERE id = 1;
DELETE FROM types0 WHERE id = 4;
DELETE FROM types0 WHERE id = 5;
SET SESSION sql_mode = DEFAULT;
-- @scenario keys1
ALTER TABLE keys1 ADD PRIMARY KEY (a);
UPDATE keys1 SET a = a + 100 WHERE a = 1;
ALTER TABLE keys1 DROP PRIMARY KEY, ADD PRIMARY KEY (a, b);
UPDATE keys1 SET b = 'z' WHERE a = 2;
INSERT INTO keys1 VALUES (1003, 'k3', NULL);
ALTER TABLE keys1 DROP PRIMARY KEY;
INSERT INTO keys1 VALUES (1004, 'k4', NULL);
UPDATE keys1 SET c = 5;
INSERT INTO keys1 VALUES (1005, 'k5', NULL);
-- @scenario alter2
ALTER TABLE alter2 MODIFY COLUMN n BIGINT UNSIGNED NULL;
INSERT INTO alter2 (id) VALUES (10);
UPDATE alter2 SET id = 11 WHERE id = 10;
ALTER TABLE alter2 COMMENT = 'c a2', ENGINE=InnoDB, ROW_FORMAT=DYNAMIC;
INSERT INTO alter2 (id) VALUES (15);
UPDATE alter2 SET id = 16 WHERE id = 15;
ALTER TABLE alter2 ALTER COLUMN n DROP DEFAULT;
INSERT INTO alter2 (id) VALUES (20);
UPDATE alter2 SET id = 21 WHERE id = 20;
ALTER TABLE alter2 ADD COLUMN a5 ENUM('p','q') NOT NULL DEFAULT 'q' AFTER v;
INSERT INTO alter2 (id) VALUES (25);
UPDATE alter2 SET id = 26 WHERE id = 25;
ALTER TABLE alter2 ADD COLUMN a6 ENUM('p','q') NOT NULL DEFAULT 'q' AFTER v;
INSERT INTO alter2 (id) VALUES (30);
UPDATE alter2 SET id = 31 WHERE id = 30;
ALTER TABLE alter2 ALTER COLUMN n DROP DEFAULT;
INSERT INTO alter2 (id) VALUES (35);
UPDATE alter2 SET id = 36 WHERE id = 35;
ALTER TABLE alter2 ALTER COLUMN n SET DEFAULT 77;
INSERT INTO alter2 (id) VALUES (40);
UPDATE alter2 SET id = 41 WHERE id = 40;
DELETE FROM alter2 WHERE id = 1;
-- @scenario noise3
DELIMITER //
CREATE PROCEDURE noise3_p(IN x INT)
BEGIN
  DECLARE y INT DEFAULT 0;
  SET y = x + 1;
  INSERT INTO noise3 VALUES (y, x);
END //
CREATE FUNCTION noise3_f(x INT) RETURNS INT DETERMINISTIC
BEGIN
  RETURN x * 2;
END //
CREATE TRIGGER noise3_tr BEFORE INSERT ON noise3 FOR EACH ROW
BEGIN
  IF NEW.v IS NULL THEN SET NEW.v = 0; END IF;
END //
DELIMITER ;
CALL noise3_p(71);
INSERT INTO noise3 VALUES (1, NULL);
CREATE VIEW noise3_v AS SELECT id, v FROM noise3;
CREATE OR REPLACE VIEW noise3_v AS SELECT id FROM noise3;
DROP VIEW noise3_v;
CREATE USER 'noise3_u'@'localhost' IDENTIFIED BY 'pw';
GRANT SELECT ON inventory.* TO 'noise3_u'@'localhost';
REVOKE SELECT ON inventory.* FROM 'noise3_u'@'localhost';
DROP USER 'noise3_u'@'localhost';
DROP TRIGGER noise3_tr;
DROP PROCEDURE noise3_p;
DROP FUNCTION noise3_f;
UPDATE noise3 SET v = 5 WHERE id = 1;
CREATE EVENT noise3_e ON SCHEDULE EVERY 1 DAY DISABLE DO DELETE FROM noise3 WHERE id < 0;
DROP EVENT noise3_e;
CREATE INDEX noise3_ix ON noise3 (v);
DROP INDEX noise3_ix ON noise3;
-- @scenario tx4
START TRANSACTION;
INSERT INTO tx4 VALUES (1, 'r1'), (2, 'r2');
INSERT INTO tx4_nk VALUES (1, 'x'), (1, 'x'), (2, NULL);
UPDATE tx4 SET id = id + 100 WHERE id <= 2;
COMMIT;
UPDATE tx4_nk SET b = 'y' WHERE a = 1;
DELETE FROM tx4_nk WHERE a = 2;
START TRANSACTION;
DELETE FROM tx4 WHERE id > 100;
INSERT INTO tx4 VALUES (500, 'late');
ROLLBACK;
UPDATE tx4 SET v = CONCAT(v, '!');
