-- (session 22, campaign seed 190000) ENUM/SET members with a comma, a backslash escape, a doubled or escaped quote:
-- Debezium 3.6.3 keeps each member as written (enumValues), and its option (the schema's `allowed`, and the value of a
-- streamed row, which the binlog gives as an index) is the text between the quotes with `,` -> `\,`, `\'` and `''`
-- -> `'`, other escapes left as written (MySqlAntlrDdlParser.escapeOption); the snapshot's values are the server's
-- strings. The emulator unescaped the members (enumValues `'e\f'`, allowed `a,b,...`)
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE en (id INT PRIMARY KEY, e ENUM('a,b','c''d','','e\\f','x\'y','t\tz') DEFAULT 'c''d', s SET('p','q\\r','s''t'));
INSERT INTO en VALUES (1, 'a,b', 'p,q\\r'), (2, 'e\\f', 's''t'), (3, 'x''y', ''), (4, 't\tz', NULL);
-- @section stream
INSERT INTO en VALUES (11, 'a,b', 'p,q\\r'), (12, 'e\\f', 's''t'), (13, 'x''y', 'p'), (14, 't\tz', NULL), (15, '', 'q\\r,s''t');
ALTER TABLE en ADD COLUMN f ENUM('m,n', 'o\\p', 'r''s') DEFAULT 'm,n' AFTER id, MODIFY s SET('p','q\\r','s''t','u v'), ALGORITHM=COPY;
INSERT INTO en (id, f, s) VALUES (21, 'o\\p', 'u v,p'), (23, 'r''s', 'q\\r');
UPDATE en SET e = 'e\\f', f = 'm,n' WHERE id = 1;
