-- @set provide.transaction.metadata=false
-- (the binlog line path: no transaction metadata) (session 17, campaign seed 86001) MariaDB's JSON is a LONGTEXT alias: the binlog holds the text. A column the
-- model knows as JSON (streamed ADD COLUMN / CREATE TABLE; the snapshot's SHOW CREATE TABLE says longtext) is
-- printed as Debezium's binlog library does: a value whose first byte is above 15 is the text as written.
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE jt (id INT PRIMARY KEY, v VARCHAR(10), snapj JSON);
INSERT INTO jt VALUES (1, 'one', '{"s":  1}');
-- @section stream
ALTER TABLE jt ADD COLUMN j JSON DEFAULT NULL AFTER v;
INSERT INTO jt (id, j) VALUES (2, '[1]'), (3, '{"a":1,  "b" : [true, null]}'), (4, '"str"'), (5, '123'), (6, ' [2] '), (7, '{"ü": "✓ 日本"}'), (8, NULL), (9, 'null'), (10, '1.50e3');
ALTER TABLE jt ADD COLUMN j2 JSON NOT NULL DEFAULT '{}';
INSERT INTO jt (id, j, j2) VALUES (11, 'true', '[{"x": "y"}]');
UPDATE jt SET j = '{"b":2}', snapj = '[3]' WHERE id = 2;
DELETE FROM jt WHERE id = 3;
CREATE TABLE jt2 (id INT PRIMARY KEY, doc JSON NOT NULL);
INSERT INTO jt2 VALUES (1, '{"k": [1, "two", {"n": null}]}'), (2, '[]');
UPDATE jt2 SET doc = JSON_SET(doc, '$.k[0]', 10) WHERE id = 1;
