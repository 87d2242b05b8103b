-- event.processing.failure.handling.mode=skip with event.converting.failure.handling.mode=fail: a streamed enum[]
-- holding a NULL fails the conversion and the change is dropped (its transaction: BEGIN, END with 0 events); a NOT
-- NULL numeric[] set to {NaN} inside a transaction likewise (END: 3 of its 4 changes); the DELETE's key-only old
-- row shows the NOT NULL numeric[]'s fallback []; the capture goes on.
-- @set event.processing.failure.handling.mode=skip
-- @set event.converting.failure.handling.mode=fail
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE public.ea (id integer PRIMARY KEY, ea mood[], na numeric[] NOT NULL DEFAULT '{}');
INSERT INTO public.ea VALUES (1, '{sad}', '{1}');
-- @section stream
INSERT INTO public.ea VALUES (2, '{ok,NULL}', '{2}');
-- @quiet
BEGIN;
INSERT INTO public.ea VALUES (3, '{ok}', '{3}');
UPDATE public.ea SET na = '{NaN}' WHERE id = 1;
INSERT INTO public.ea VALUES (4, '{happy}', '{4}');
DELETE FROM public.ea WHERE id = 3;
COMMIT;
UPDATE public.ea SET ea = '{sad,NULL}' WHERE id = 4;
INSERT INTO public.ea VALUES (5, '{happy}', '{5}');
