-- Case snapshot_max_threads: snapshot.max.threads=2 (Debezium 3.6's chunked parallel snapshot): keyed tables
-- of 2-3 rows read in key order in 2 chunks (rows inserted/updated out of key order), a keyless table in one
-- chunk (physical order), a composite key, a 1-row table before an empty last table (its row `last`);
-- tables of <= 3 rows so that the order within each topic does not depend on Debezium's threads.
-- @set snapshot.max.threads=2
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t_a (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=MyISAM;
INSERT INTO t_a VALUES (3, 'three'), (1, 'one'), (2, 'two');
CREATE TABLE t_b (v VARCHAR(20), n INT);
INSERT INTO t_b VALUES ('z', 1), ('y', 2), ('x', 3);
CREATE TABLE t_c (k1 VARCHAR(10), k2 INT, note VARCHAR(10), PRIMARY KEY (k1, k2)) ENGINE=MyISAM;
INSERT INTO t_c VALUES ('b', 1, 'b1'), ('a', 2, 'a2'), ('a', 1, 'a1');
CREATE TABLE t_d (id BIGINT PRIMARY KEY, v VARCHAR(20)) ENGINE=MyISAM;
INSERT INTO t_d VALUES (20, 'twenty'), (10, 'ten');
CREATE TABLE t_e (id INT PRIMARY KEY, v VARCHAR(20));
INSERT INTO t_e VALUES (7, 'seven');
CREATE TABLE t_f (id INT PRIMARY KEY, v VARCHAR(20));
-- @section stream
INSERT INTO t_a VALUES (4, 'four');
INSERT INTO t_f VALUES (1, 'f1');
