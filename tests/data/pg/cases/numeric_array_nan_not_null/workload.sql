-- Case numeric_array_nan_not_null (targeted after numeric_nan_not_null_stops): pgjdbc cannot read a numeric[] holding
-- NaN, Debezium makes it null ("Failed to read value of array n"), and in a NOT NULL column Connect's required-field
-- validation stops the connector in the snapshot (here before any record was delivered: its last poll batch is lost).
-- The emulator emitted null in the required field and went on. (The +-infinity dates/timestamps before it convert.)
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.b4 (id integer PRIMARY KEY, n numeric[] NOT NULL, d date NOT NULL, t timestamp NOT NULL);
INSERT INTO public.b4 VALUES (1, '{1.5}', 'infinity', 'infinity'), (2, '{2.5}', '-infinity', '-infinity'), (3, '{NaN}', '2024-01-01', '2024-01-01'), (4, '{4}', '2024-01-01', '2024-01-01');
-- @section stream
INSERT INTO public.b4 VALUES (5, '{5}', '2024-01-01', '2024-01-01');
