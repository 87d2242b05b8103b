-- Case mask_hash_v2: mask_non_text_columns under column.mask.hash.v2.* (HashingByteArrayStrategy V2 hashes the text's
-- bytes, V1 the Java-serialized String; recorded after the V1 fix had briefly applied V1 to both).
-- @set column.mask.with.4.chars=inventory\.mk\.c[0-9]
-- @set column.mask.hash.v2.SHA-256.with.salt.CzQMA0cB5K=inventory\.mk\.h[0-9]
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE mk (id INT NOT NULL PRIMARY KEY, c0 BLOB NOT NULL, c1 BINARY(4), c2 CHAR(5), c3 TIMESTAMP(6) NULL DEFAULT NULL, c4 SET('x','y','z'), c5 JSON, c6 INT, c7 DATETIME, c8 DECIMAL(6,2), h1 VARBINARY(8), h2 VARCHAR(20), h3 BIGINT, h4 ENUM('a','b'));
INSERT INTO mk VALUES (1, X'DEADBEEF', X'01020304', 'abc', '2024-02-29 13:45:30.123456', 'x,z', '{"a": 1}', 42, '2024-01-01 10:00:00', 12.5, X'CAFE', 'hash me', 7, 'b');
-- @section stream
INSERT INTO mk VALUES (2, X'', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE mk SET c6 = 43, h2 = 'again' WHERE id = 1;
