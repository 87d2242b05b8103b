-- (session 24) an incremental snapshot naming a table a''b: Debezium reads the data collection back with
-- TableId.parse (public.a'b, every doubled quote character collapsed).
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
CREATE TABLE public."a''b" (id integer PRIMARY KEY, v text);
INSERT INTO public."a''b" VALUES (1, 'pre'), (2, 'pre2');
-- @section stream
INSERT INTO public.plain VALUES (1, 'one');
-- @quiet
INSERT INTO public.debezium_signal VALUES ('i1', 'execute-snapshot', '{"data-collections": ["public.a''''b", "public.plain"], "type": "incremental"}');
-- @quiet
INSERT INTO public.plain VALUES (2, 'two');
