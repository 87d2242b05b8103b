-- Case blocking_snapshot_kept_events (and campaign seed 81016), with snapshot.locking.mode=none.
-- * Without locks Debezium collects each database's SHOW CREATE TABLE results with HashMap.putAll into a fresh
--   HashMap (createSchemaEventsForTables), whose first putAll pre-sizes the table to 2 buckets, doubling past 0.75
--   load: 6 tables iterate over 8 buckets (convs4 first), 3 over 4 (other: o2, o6, o1), not over 16 as the emulator
--   assumed (seed 81016). The blocking snapshot's new CREATE TABLEs come in the same kind of map (alter2, n6, n1).
-- * Debezium's binlog snapshot source keeps its schema events in one LinkedHashSet for the task's life
--   (BinlogSnapshotChangeEventSource.schemaEvents; SchemaChangeEvent.equals compares database, schema, DDL text and
--   type only). A blocking snapshot adds its DROP TABLE / SHOW CREATE TABLE events unless an equal one is there,
--   then dispatches every kept event of the signal's tables in the set's order, each with the source it was built
--   with: unchanged tables get the initial snapshot's records again (server_id 0, its position, `snapshot` true); a
--   table altered since (alter2, convs4) its initial CREATE TABLE (old columns) again and the new text after; tables
--   created since (n1, n6) new DROP/CREATE events. New events carry the stream's position, `snapshot` false.
-- * The initial snapshot reads no row: its last schema event (CREATE TABLE other.o1) is marked `last` in the event's
--   own source struct, so every later dispatch of it says `last`; the same for a blocking snapshot without rows
--   (convs4's new CREATE in blk-2, `last` again in blk-3).
-- @set snapshot.locking.mode=none
-- @section pre
CREATE DATABASE inventory;
CREATE DATABASE other;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE alter2 (id INT PRIMARY KEY, v VARCHAR(5));
CREATE TABLE convs4 (id INT PRIMARY KEY, w INT);
CREATE TABLE keynulls3 (id INT PRIMARY KEY);
CREATE TABLE `names1_ü` (id INT PRIMARY KEY);
CREATE TABLE types0 (id INT PRIMARY KEY);
CREATE TABLE other.o1 (id INT PRIMARY KEY);
CREATE TABLE other.o2 (id INT PRIMARY KEY);
CREATE TABLE other.o6 (id INT PRIMARY KEY);
-- @section stream
ALTER TABLE alter2 ADD COLUMN n INT DEFAULT 3;
INSERT INTO alter2 VALUES (1, 'a', 1);
CREATE TABLE n1 (id INT PRIMARY KEY, z TEXT);
CREATE TABLE n6 (id INT PRIMARY KEY);
INSERT INTO n1 VALUES (1, 'z');
ALTER TABLE convs4 ADD COLUMN q INT;
-- @quiet
INSERT INTO debezium_signal (id, type, data) VALUES ('blk-1', 'execute-snapshot', '{"data-collections": ["inventory.alter2", "other.o1", "inventory.n1", "inventory.n6"], "type": "blocking"}');
-- @quiet
INSERT INTO debezium_signal (id, type, data) VALUES ('blk-2', 'execute-snapshot', '{"data-collections": ["inventory.convs4", "other.o1"], "type": "blocking"}');
-- @quiet
INSERT INTO debezium_signal (id, type, data) VALUES ('blk-3', 'execute-snapshot', '{"data-collections": ["inventory.alter2", "inventory.convs4"], "type": "blocking"}');
