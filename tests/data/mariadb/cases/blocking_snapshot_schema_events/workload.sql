-- Case blocking_snapshot_schema_events: snapshot.locking.mode=none, then a blocking execute-snapshot naming a table
-- in table.exclude.list beside four captured ones.
-- * Without locks Debezium reads the CREATE TABLE statements on its schema worker pool into a HashMap<TableId,
--   String> per database and writes them in that map's iteration order, not by name
--   (BinlogSnapshotChangeEventSource.createSchemaEventsForTables; campaign seed 78004). Two databases.
-- * Its blocking snapshot (its snapshot source on demand) reads the captured tables only and first writes their
--   schema events: a DROP TABLE of each, then their CREATE TABLEs (HashMap order here too), marked `true`, without
--   the SET / database statements; the emulator wrote none.
-- @set snapshot.locking.mode=none
-- @set table.exclude.list=inventory\.alter1
-- @section pre
CREATE DATABASE inventory;
CREATE DATABASE other;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE keycols4_nk (id INT PRIMARY KEY, v INT);
CREATE TABLE keycols4_pk (id INT PRIMARY KEY, v INT);
CREATE TABLE keys2 (a INT PRIMARY KEY);
INSERT INTO keys2 VALUES (7);
CREATE TABLE noise1 (id INT PRIMARY KEY);
CREATE TABLE renames5_a (id INT PRIMARY KEY);
CREATE TABLE tx3 (id INT PRIMARY KEY);
INSERT INTO tx3 VALUES (1), (2);
CREATE TABLE tx3_nk (a INT);
CREATE TABLE types0 (id INT PRIMARY KEY, v VARCHAR(5));
INSERT INTO types0 VALUES (1, 'a');
CREATE TABLE alter1 (id INT NOT NULL PRIMARY KEY, v VARCHAR(20) DEFAULT 'd', n INT);
INSERT INTO alter1 VALUES (1, 'one', 1), (2, 'two', 2);
CREATE TABLE other.b1 (id INT PRIMARY KEY);
CREATE TABLE other.a2 (id INT PRIMARY KEY);
CREATE TABLE other.zz (id INT PRIMARY KEY);
-- @section stream
INSERT INTO debezium_signal (id, type, data) VALUES ('blk-1', 'execute-snapshot', '{"data-collections": ["inventory.alter1", "inventory.types0", "inventory.keys2", "inventory.noise1", "inventory.tx3"], "type": "blocking"}');
-- @quiet
INSERT INTO types0 VALUES (2, 'b');
