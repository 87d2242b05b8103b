-- Case blocking_snapshot_kept_events: Debezium's binlog snapshot source keeps its schema events in one
-- LinkedHashSet for the task's life (BinlogSnapshotChangeEventSource.schemaEvents; SchemaChangeEvent.equals compares
-- database, schema, DDL text and type only). A blocking snapshot adds its DROP TABLE / SHOW CREATE TABLE events to it
-- unless an equal one is there, then dispatches every kept event of the signal's tables in the set's order, each
-- with the source it was built with:
-- * unchanged tables: the initial snapshot's records again (server_id 0, its position, `snapshot` true);
-- * a table altered since (a1, b1): the initial snapshot's CREATE TABLE (old columns) again, the new text after;
-- * a table created since (d1): new DROP/CREATE events; new events carry the stream's position, `snapshot` false;
-- * the initial snapshot reads no row: its last schema event (CREATE TABLE zz) is marked `last` in the event's own
--   source struct, so every later dispatch of it says `last`; the same for a blocking snapshot without rows (b1's
--   new CREATE in blk-2, `last` again in blk-3).
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE a1 (id INT PRIMARY KEY, v VARCHAR(5));
CREATE TABLE b1 (id INT PRIMARY KEY, w INT);
CREATE TABLE zz (id INT PRIMARY KEY);
-- @section stream
ALTER TABLE a1 ADD COLUMN n INT DEFAULT 3;
INSERT INTO a1 VALUES (1, 'a', 1);
CREATE TABLE d1 (id INT PRIMARY KEY, z TEXT);
INSERT INTO d1 VALUES (1, 'z');
-- @quiet
INSERT INTO debezium_signal (id, type, data) VALUES ('blk-1', 'execute-snapshot', '{"data-collections": ["inventory.a1", "inventory.zz", "inventory.d1"], "type": "blocking"}');
-- @quiet
ALTER TABLE b1 ADD COLUMN q INT;
-- @quiet
INSERT INTO debezium_signal (id, type, data) VALUES ('blk-2', 'execute-snapshot', '{"data-collections": ["inventory.b1", "inventory.zz"], "type": "blocking"}');
-- @quiet
INSERT INTO debezium_signal (id, type, data) VALUES ('blk-3', 'execute-snapshot', '{"data-collections": ["inventory.a1", "inventory.b1"], "type": "blocking"}');
-- @quiet
INSERT INTO a1 VALUES (2, 'b', 2);
