-- (session 23) an incremental snapshot naming `s "q".T` (the table never written): AbstractIncrementalSnapshotContext
-- reads the expanded name with TableId.parse, which throws: "Unable to parse table identifier ... Skipping it."
-- Nothing is read and no window opens. The emulator opened windows (their watermark rows) before.
-- @set snapshot.mode=no_data
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
CREATE SCHEMA "s ""q""";
CREATE TABLE "s ""q"""."T" (id integer PRIMARY KEY, v text);
INSERT INTO "s ""q"""."T" VALUES (1, 'pre');
-- @section stream
INSERT INTO public.plain VALUES (1, 'one');
-- @quiet
INSERT INTO public.debezium_signal VALUES ('i1', 'execute-snapshot', '{"data-collections": ["s \"q\".T"], "type": "incremental"}');
-- @quiet
INSERT INTO public.plain VALUES (2, 'two');
