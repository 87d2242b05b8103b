-- (session 23, refused before) event.processing.failure.handling.mode=warn with snapshot.max.threads=2: a NaN in a NOT
-- NULL numeric drops its row in the parallel snapshot as in the single-threaded one (nn row 2); the last table's last
-- row dropped (zz row 2) leaves `last` on its row 1. The emulator's readers are threads then, not forked processes.
-- @set event.processing.failure.handling.mode=warn
-- @set snapshot.max.threads=2
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.nn (id integer PRIMARY KEY, n numeric NOT NULL, v text);
INSERT INTO public.nn VALUES (1, 1.5, 'a'), (2, 'NaN', 'b'), (3, 3.5, 'c');
CREATE TABLE public.zz (id integer PRIMARY KEY, n numeric NOT NULL);
INSERT INTO public.zz VALUES (1, 1), (2, 'NaN');
CREATE TABLE public.plain (id integer PRIMARY KEY, v text);
INSERT INTO public.plain VALUES (1, 'one'), (2, 'two');
-- @section stream
INSERT INTO public.nn VALUES (4, 4.5, 'd');
