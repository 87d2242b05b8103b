-- snapshot.locking.mode=none: Debezium reads the CREATE TABLE statements on its schema worker pool into a
-- HashMap<TableId, String> per database and writes them in that map's iteration order, not by name
-- (BinlogSnapshotChangeEventSource.createSchemaEventsForTables; campaign seed 78004). Two databases.
-- @set snapshot.locking.mode=none
-- @section pre
CREATE DATABASE inventory;
CREATE DATABASE other;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE keycols4_nk (id INT PRIMARY KEY, v INT);
CREATE TABLE keycols4_pk (id INT PRIMARY KEY, v INT);
CREATE TABLE keys2 (a INT PRIMARY KEY);
CREATE TABLE noise1 (id INT PRIMARY KEY);
CREATE TABLE renames5_a (id INT PRIMARY KEY);
CREATE TABLE tx3 (id INT PRIMARY KEY);
CREATE TABLE tx3_nk (a INT);
CREATE TABLE types0 (id INT PRIMARY KEY, v VARCHAR(5));
INSERT INTO types0 VALUES (1, 'a');
CREATE TABLE other.b1 (id INT PRIMARY KEY);
CREATE TABLE other.a2 (id INT PRIMARY KEY);
CREATE TABLE other.zz (id INT PRIMARY KEY);
-- @section stream
INSERT INTO types0 VALUES (2, 'b');
