-- (session 23, recorded; both agreed before) an incremental snapshot of a table named `x"`: Debezium's maximum-key
-- query names it bare and fails ("Failed to read maximum key"), the window's watermarks are written, no row is read.
-- @set snapshot.mode=no_data
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
CREATE TABLE public."x""" (id integer PRIMARY KEY, v text);
INSERT INTO public."x""" VALUES (1, 'pre');
-- @section stream
INSERT INTO public.plain VALUES (1, 'one');
-- @quiet
INSERT INTO public.debezium_signal VALUES ('i1', 'execute-snapshot', '{"data-collections": ["public.x\""], "type": "incremental"}');
-- @quiet
INSERT INTO public.plain VALUES (2, 'two');
