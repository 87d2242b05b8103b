-- Case dml_forms_executable_comments (campaign seed 82006): every form of the generator's dml scenario
-- (workloads_mariadb_dml.py: REPLACE, ON DUPLICATE KEY UPDATE, INSERT IGNORE, multi-table UPDATE/DELETE, ORDER BY
-- LIMIT, LOCK TABLES, CREATE TABLE IF NOT EXISTS of an existing table) and mysqldump's executable comments. Debezium's
-- MySQL grammar drops the `/*!NNNNN` and `*/` markers and parses what is inside (`/*!40101 DEFAULT CHARSET=latin1 */`
-- makes the table latin1); a statement's `ddl` runs from its first token to its last, so a trailing `*/` (and a
-- leading marker) is not shown. The emulator stopped on `/*!` (sqlglot cannot tokenize it).
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE dml0 (id INT PRIMARY KEY, u VARCHAR(8) NULL, v INT NOT NULL DEFAULT 0, w TEXT, UNIQUE KEY uq_u (u));
INSERT INTO dml0 VALUES (1, 'u1', 10, 'one'), (2, 'u2', 20, 'two'), (3, 'u3', 30, NULL), (4, NULL, 40, 'four');
CREATE TABLE dml0_b (id INT PRIMARY KEY, ref INT, x INT);
INSERT INTO dml0_b VALUES (1, 1, 100), (2, 2, 200), (3, 4, 300), (4, 9, 400);
-- @section stream
REPLACE INTO dml0 (id, u, v) VALUES (50, 'u50', 5);
REPLACE INTO dml0 VALUES (1, 'u1', 11, 'replaced');
REPLACE INTO dml0 SET id = 2, u = 'u3', v = 22;
REPLACE INTO dml0_b SELECT id + 10, id, v FROM dml0 WHERE id <= 2;
INSERT INTO dml0 (id, u, v) VALUES (3, 'x', 1) ON DUPLICATE KEY UPDATE v = v + 1, w = 'dup';
INSERT INTO dml0 (id, u, v, w) VALUES (60, 'u60', 6, 'new'), (4, 'u4', 44, 'w4') ON DUPLICATE KEY UPDATE v = VALUES(v), w = CONCAT(COALESCE(w, ''), VALUES(w));
INSERT INTO dml0 (id, v) VALUES (1, 1) ON DUPLICATE KEY UPDATE v = v;
INSERT IGNORE INTO dml0 (id, u, v) VALUES (1, 'zz', 0), (70, 'u70', 7);
INSERT INTO dml0_b (id, ref, x) SELECT id + 100, id, v * 2 FROM dml0 WHERE v >= 20;
UPDATE dml0 JOIN dml0_b ON dml0.id = dml0_b.ref SET dml0.v = dml0.v + 1, dml0_b.x = dml0_b.x * 2 WHERE dml0_b.id <= 3;
UPDATE dml0 a, dml0_b b SET b.x = a.v WHERE a.id = b.ref AND a.id = 2;
DELETE dml0, dml0_b FROM dml0 JOIN dml0_b ON dml0.id = dml0_b.ref WHERE dml0.id = 4;
DELETE FROM b USING dml0_b AS b LEFT JOIN dml0 AS a ON a.id = b.ref WHERE a.id IS NULL;
UPDATE dml0 SET v = v + 1000 ORDER BY id DESC LIMIT 2;
DELETE FROM dml0_b ORDER BY x DESC, id LIMIT 1;
UPDATE dml0 SET w = w WHERE id = 1;
LOCK TABLES dml0 WRITE, dml0_b WRITE;
INSERT INTO dml0_b VALUES (90, 1, 9);
UNLOCK TABLES;
CREATE TABLE IF NOT EXISTS dml0 (id INT PRIMARY KEY, other TEXT);
INSERT INTO dml0 (id) VALUES (80);
CREATE TABLE dml0_p (id INT NOT NULL PRIMARY KEY, v INT) /*!50100 PARTITION BY HASH (id) PARTITIONS 2 */;
INSERT INTO dml0_p VALUES (1, 1), (2, 2);
/*!40000 ALTER TABLE dml0_b DISABLE KEYS */;
INSERT INTO dml0_b VALUES (91, 2, 1);
/*!40000 ALTER TABLE dml0_b ENABLE KEYS */;
UPDATE dml0_b SET x = 5 WHERE id = 1;
CREATE TABLE dml0_d (id INT PRIMARY KEY, v INT) /*!40101 DEFAULT CHARSET=latin1 */;
INSERT INTO dml0_d VALUES (1, 1);
UPDATE dml0 SET v = v + 1 WHERE id = 1;
/*!40000 ALTER TABLE dml0 DISABLE KEYS */;
ALTER TABLE dml0_d ADD COLUMN c2 VARCHAR(5) /*!40101 CHARACTER SET latin1 */ DEFAULT 'x';
INSERT INTO dml0_d (id, c2) VALUES (2, 'é');
