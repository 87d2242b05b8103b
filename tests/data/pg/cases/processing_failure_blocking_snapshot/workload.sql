-- (session 22) event.processing.failure.handling.mode=skip, a blocking snapshot of a table holding a NaN in a NOT NULL
-- precise numeric: Debezium drops that row (rows 1 and 3 are `first` and `last`, 2 missing) and streaming resumes.
-- The emulator abandoned the blocking snapshot on the row before (no record of it).
-- @set event.processing.failure.handling.mode=skip
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
INSERT INTO public.plain VALUES (1, 'one');
-- @section stream
CREATE TABLE public.nn (id integer PRIMARY KEY, n numeric NOT NULL, v text);
INSERT INTO public.nn VALUES (1, 1.5, 'a'), (2, 'NaN', 'b'), (3, 3.5, 'c');
-- @quiet
INSERT INTO public.debezium_signal VALUES ('i1', 'execute-snapshot', '{"data-collections": ["public.nn"], "type": "blocking"}');
-- @quiet
INSERT INTO public.plain VALUES (2, 'two');
INSERT INTO public.nn VALUES (4, 4.5, 'd');
