-- (session 23, diffcamp31; campaign seed 206002) The MySqlConnector's snapshot reads DECIMAL(M,D) ZEROFILL with
-- Connector/J's getObject -> getString, which pads the value's plain text to M characters (StringUtils.zeroFill): a
-- value with all M-D integer digits is one character longer and throws (NegativeArraySizeException: -1); the
-- snapshot stops there and the row read before it, held by the buffering receiver, is lost. 99999.99 fits in
-- DECIMAL(8,2); 999999.99 does not; D = 0 and NULL never fail; streamed values (the binlog) are not affected.
-- @section pre
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE zf (id INT PRIMARY KEY, c DECIMAL(8,2) UNSIGNED ZEROFILL, d DECIMAL(5,0) ZEROFILL, n INT);
INSERT INTO zf VALUES (1, 1.5, 99999, 1), (2, 99999.99, 7, 2), (3, NULL, NULL, 3), (4, 0.01, 0, 4), (5, 999999.99, 1, 5), (6, 2.5, 2, 6);
-- @section stream
INSERT INTO zf VALUES (11, 999999.99, 99999, 11);
