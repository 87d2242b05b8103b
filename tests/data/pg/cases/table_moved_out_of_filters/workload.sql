-- *finding* (campaign seed 44714013, the s18 `moves` draw with schema.include.list=public): a captured table
-- renamed, then moved (ALTER TABLE ... SET SCHEMA) into a schema the filters leave out. Debezium's
-- PostgresSchema.applySchemaChangesForTable skips the filtered Relation message without forgetting the table its
-- relation id was mapped to, so the table's later changes are still captured under its old name
-- (dbserver1.public.mv2), in transactions with included tables too. The emulator dropped them (fails before:
-- 10 mismatches of 22). Recorded with Debezium 3.6.3.
-- @set schema.include.list=public
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE SCHEMA other;
CREATE TABLE public.mv (id integer PRIMARY KEY, v text);
INSERT INTO public.mv VALUES (1, 'one'), (2, 'two');
CREATE TABLE public.keep (id integer PRIMARY KEY, v text);
-- @section stream
ALTER TABLE public.mv RENAME TO mv2;
INSERT INTO public.mv2 VALUES (3, 'three');
-- @quiet
ALTER TABLE public.mv2 SET SCHEMA other;
INSERT INTO other.mv2 VALUES (4, 'four');
UPDATE other.mv2 SET v = 'uno' WHERE id = 1;
DELETE FROM other.mv2 WHERE id = 2;
INSERT INTO public.keep VALUES (1, 'k');
-- @quiet
BEGIN;
INSERT INTO other.mv2 VALUES (5, 'five');
INSERT INTO public.keep VALUES (2, 'k2');
COMMIT;
