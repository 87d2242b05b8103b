-- Case snapshot_max_threads_multiplier_table: snapshot.max.threads=1 (the default) with a per-table
-- multiplier, snapshot.max.threads.multiplier.inventory.t_b=3 (CommonConnectorConfig: the key
-- `snapshot.max.threads.multiplier.<table id>`). Any multiplier above 1 puts Debezium 3.6 on its chunked
-- snapshot path for every table: t_b is cut into 3 chunks; t_a (multiplier 1, one thread: one chunk) is still
-- read as a chunk bounded by its maximum key, ORDER BY the key; t_c without a key is one chunk in physical
-- order; t_d is empty. MyISAM keeps the rows in insertion order, which is not key order. One thread: the
-- whole output's order is deterministic.
-- @set snapshot.max.threads.multiplier.inventory.t_b=3
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t_a (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=MyISAM;
INSERT INTO t_a VALUES (3, 'three'), (1, 'one'), (2, 'two');
CREATE TABLE t_b (k1 VARCHAR(10), k2 INT, note VARCHAR(10), PRIMARY KEY (k1, k2)) ENGINE=MyISAM;
INSERT INTO t_b VALUES ('b', 2, 'b2'), ('c', 1, 'c1'), ('a', 2, 'a2'), ('b', 1, 'b1'), ('a', 1, 'a1'), ('c', 2, 'c2');
CREATE TABLE t_c (v VARCHAR(20), n INT) ENGINE=MyISAM;
INSERT INTO t_c VALUES ('z', 1), ('y', 2), ('x', 3);
CREATE TABLE t_d (id INT PRIMARY KEY, v VARCHAR(20));
-- @section stream
INSERT INTO t_a VALUES (4, 'four');
