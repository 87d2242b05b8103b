-- Enum labels added and a domain/enum column added mid-stream; ALTER TYPE RENAME VALUE; a column of a
-- type created after the connector started.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TYPE public.color AS ENUM ('red', 'green');
CREATE DOMAIN public.pct AS numeric(5,2) CHECK (VALUE BETWEEN 0 AND 100);
CREATE TABLE public.e (id integer PRIMARY KEY, c color, p pct, cs color[]);
INSERT INTO public.e VALUES (1, 'red', 12.5, '{red,green}');
-- @section stream
INSERT INTO public.e VALUES (2, 'green', 99.99, '{}');
-- @quiet
ALTER TYPE public.color ADD VALUE 'blue';
-- @quiet
INSERT INTO public.e VALUES (3, 'blue', 0, '{blue}');
-- @quiet
CREATE TYPE public.size AS ENUM ('s', 'm', 'l');
ALTER TABLE public.e ADD COLUMN sz size DEFAULT 'm';
INSERT INTO public.e (id, c) VALUES (4, 'red');
UPDATE public.e SET sz = 'l', p = NULL WHERE id = 1;
-- @quiet
ALTER TYPE public.color RENAME VALUE 'green' TO 'lime';
INSERT INTO public.e VALUES (5, 'lime', 50, '{lime,red}', 's');
DELETE FROM public.e WHERE id = 2;
