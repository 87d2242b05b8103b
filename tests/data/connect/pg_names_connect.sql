-- PostgreSQL workload with names Avro does not accept as they are (AvroConverter `scrub.invalid.names`):
-- column names with a hyphen, a space, a dot, a leading digit, a non-ASCII letter; a table name with a
-- hyphen and one with a non-ASCII letter (record names and namespaces). Sections as in pg_connect.sql.

-- @section pre
CREATE TABLE "my-table" (
  id      INTEGER PRIMARY KEY,
  "my col" TEXT,
  "1st"   INTEGER,
  "a-b"   INTEGER,
  "x.y"   TEXT,
  "ñu"    TEXT,
  _ok     INTEGER DEFAULT 7
);
INSERT INTO "my-table" VALUES (1, 'one', 1, 10, 'dot', 'ñ', 1), (2, NULL, NULL, NULL, NULL, NULL, DEFAULT);
CREATE TABLE "tést" (id INTEGER PRIMARY KEY, "välue" TEXT);
INSERT INTO "tést" VALUES (1, 'a');

-- @section stream
INSERT INTO "my-table" VALUES (3, 'three', 3, 30, 'x', 'ü', 3);
UPDATE "my-table" SET "my col" = 'uno', "a-b" = 11 WHERE id = 1;
DELETE FROM "my-table" WHERE id = 2;
INSERT INTO "tést" VALUES (2, 'b');
UPDATE "tést" SET "välue" = 'c' WHERE id = 1;
