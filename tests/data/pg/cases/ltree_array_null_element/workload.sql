-- (session 24; campaign seed 44789000, the s22 `arrays` draw) an ltree[] holding a NULL element: Debezium's
-- convertLtreeArray calls toString() on every element of the PgArray (snapshot) or List (stream), a NULL one throws,
-- and TableSchemaBuilder logs "Failed to properly convert data value" and leaves the field null (the default
-- converting mode `warn`). Arrays without a NULL element, an empty one and a NULL array stay as they are. The
-- emulator sent the elements.
-- @section pre
CREATE EXTENSION IF NOT EXISTS ltree;
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.lt (id integer PRIMARY KEY, a ltree[], b ltree);
INSERT INTO public.lt VALUES (1, '{a.b,NULL,a.b}', 'x.y'), (2, '{top}', NULL), (3, '{}', 'z'), (4, NULL, NULL), (5, '{NULL}', 'w');
-- @section stream
INSERT INTO public.lt VALUES (6, '{top,NULL}', 'q'), (7, '{p.q.r}', NULL);
UPDATE public.lt SET a = '{NULL,a.b,a.b}' WHERE id = 2;
UPDATE public.lt SET b = 'm' WHERE id = 1;
DELETE FROM public.lt WHERE id = 6;
ALTER TABLE public.lt REPLICA IDENTITY FULL;
UPDATE public.lt SET b = 'n' WHERE id = 1;
DELETE FROM public.lt WHERE id = 5;
