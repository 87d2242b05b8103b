-- message.key.columns on MariaDB as Debezium's CustomKeyMapper reads it: a table regex in another case, column
-- regexes, a column name in another case, a column the table lacks (the primary key), two entries for one table
-- @set message.key.columns=INVENTORY\.A_NK:k.*;inventory\.b_nk:(id|code);inventory\.c_pk:nope;inventory\.d_pk:CODE,id;inventory\.e_pk:code;inventory\.e_p.:v
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE a_nk (id INT NOT NULL, code VARCHAR(8), Kx INT, v TEXT);
INSERT INTO a_nk VALUES (1, 'a', 10, 'one'), (2, 'b', 20, 'two');
CREATE TABLE b_nk (id INT NOT NULL, code VARCHAR(8), v TEXT);
INSERT INTO b_nk VALUES (1, 'a', 'one'), (2, 'b', 'two');
CREATE TABLE c_pk (id INT PRIMARY KEY, code VARCHAR(8) NOT NULL, v TEXT);
INSERT INTO c_pk VALUES (1, 'a', 'one');
CREATE TABLE d_pk (id INT PRIMARY KEY, code VARCHAR(8) NOT NULL, v TEXT);
INSERT INTO d_pk VALUES (1, 'a', 'one');
CREATE TABLE e_pk (id INT PRIMARY KEY, code VARCHAR(8) NOT NULL, v TEXT);
INSERT INTO e_pk VALUES (1, 'a', 'one');
-- @section stream
INSERT INTO a_nk VALUES (3, 'c', 30, 'three');
UPDATE a_nk SET v = 'uno' WHERE id = 1;
UPDATE a_nk SET Kx = 21 WHERE id = 2;
DELETE FROM a_nk WHERE id = 3;
INSERT INTO b_nk VALUES (3, 'c', 'three');
UPDATE b_nk SET code = 'bb' WHERE id = 2;
DELETE FROM b_nk WHERE id = 1;
INSERT INTO c_pk VALUES (2, 'b', 'two');
UPDATE c_pk SET id = 3 WHERE id = 2;
DELETE FROM c_pk WHERE id = 1;
INSERT INTO d_pk VALUES (2, 'b', 'two');
UPDATE d_pk SET code = 'bb' WHERE id = 2;
DELETE FROM d_pk WHERE id = 1;
INSERT INTO e_pk VALUES (2, 'b', 'two');
UPDATE e_pk SET v = 'zwei' WHERE id = 2;
DELETE FROM e_pk WHERE id = 1;
ALTER TABLE e_pk ADD COLUMN w INT;
INSERT INTO e_pk VALUES (4, 'd', 'vier', 4);
