-- (session 22) event.processing.failure.handling.mode=warn, an incremental snapshot of a table holding a NaN in a NOT
-- NULL precise numeric: Debezium drops that row (dispatchSnapshotEvent's failure handler; rows 1 and 3 read, 2
-- missing) and the snapshot goes on; the streamed insert of the NaN row was dropped likewise. The emulator stopped
-- the incremental snapshot on the row before.
-- @set event.processing.failure.handling.mode=warn
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
INSERT INTO public.plain VALUES (1, 'one');
-- @section stream
CREATE TABLE public.nn (id integer PRIMARY KEY, n numeric NOT NULL, v text);
INSERT INTO public.nn VALUES (1, 1.5, 'a'), (2, 'NaN', 'b'), (3, 3.5, 'c');
-- @quiet
INSERT INTO public.debezium_signal VALUES ('i1', 'execute-snapshot', '{"data-collections": ["public.nn"], "type": "incremental"}');
-- @quiet
INSERT INTO public.plain VALUES (2, 'two');
INSERT INTO public.nn VALUES (4, 4.5, 'd');
