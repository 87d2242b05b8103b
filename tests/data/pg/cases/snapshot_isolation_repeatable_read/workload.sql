-- (session 23) snapshot.isolation.mode=repeatable_read, refused before: Debezium begins a snapshot without the new slot's
-- exported snapshot (this blocking one) with SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY; the records are
-- those of the default (serializable).
-- @set snapshot.isolation.mode=repeatable_read
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.a (id integer PRIMARY KEY, v text);
CREATE TABLE public.b (id integer PRIMARY KEY, n numeric(6,2));
INSERT INTO public.a VALUES (1, 'one'), (2, 'two');
INSERT INTO public.b VALUES (1, 1.5);
-- @section stream
INSERT INTO public.a VALUES (3, 'three');
UPDATE public.b SET n = 2.25 WHERE id = 1;
-- @quiet
INSERT INTO public.debezium_signal VALUES ('b1', 'execute-snapshot', '{"data-collections": ["public.a", "public.b"], "type": "blocking"}');
-- @quiet
INSERT INTO public.b VALUES (2, 3.75);
DELETE FROM public.a WHERE id = 1;
