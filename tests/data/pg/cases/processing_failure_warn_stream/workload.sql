-- event.processing.failure.handling.mode=warn on PostgreSQL (refused before session 21): a streamed NaN in a NOT NULL
-- numeric (decimal.handling.mode precise) fails the change, which stops Debezium under `fail` (case
-- numeric_nan_not_null_stops). Under `warn` EventDispatcher.dispatchDataChangeEvent logs "Error while processing
-- event" and drops the change: the autocommit INSERT's transaction gives BEGIN and END with event_count 0, the
-- UPDATE inside the later transaction is missing (END: 2 events), the capture goes on.
-- @set event.processing.failure.handling.mode=warn
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.nn (id integer PRIMARY KEY, n numeric NOT NULL, v text);
INSERT INTO public.nn VALUES (1, 1.5, 'a');
-- @section stream
INSERT INTO public.nn VALUES (2, 2.5, 'b');
-- @quiet
INSERT INTO public.nn VALUES (3, 'NaN', 'c');
-- @quiet
BEGIN;
INSERT INTO public.nn VALUES (4, 4.5, 'd');
UPDATE public.nn SET n = 'NaN' WHERE id = 1;
INSERT INTO public.nn VALUES (5, 5.5, 'e');
COMMIT;
INSERT INTO public.nn VALUES (6, 6.5, 'f');
