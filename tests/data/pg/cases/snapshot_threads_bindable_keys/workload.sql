-- snapshot.max.threads=2 with key types Debezium's chunk query binds (pgjdbc's getObject, then setObject): an
-- empty money-keyed table (no maximum key: nothing bound), a money-keyed table read by its
-- snapshot.select.statement.overrides query (one unbounded chunk), bit(3) (a PGobject of type bit), oid (an int8
-- bound), "char" and name (varchar bounds). Debezium snapshots and streams them all; so must the emulator.
-- @set snapshot.max.threads=2
-- @set snapshot.select.statement.overrides=public.mo
-- @set snapshot.select.statement.overrides.public.mo=SELECT * FROM public.mo WHERE v <> 'skip'
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.me (k money PRIMARY KEY, v text);
CREATE TABLE public.mo (k money PRIMARY KEY, v text);
INSERT INTO public.mo VALUES (1.5, 'a'), (0.5, 'b'), (2, 'skip');
CREATE TABLE public.b3 (k bit(3) PRIMARY KEY, v text);
INSERT INTO public.b3 VALUES (B'101', 'a'), (B'001', 'b'), (B'111', 'c');
CREATE TABLE public.ok (k oid PRIMARY KEY, v text);
INSERT INTO public.ok VALUES (4000000000, 'big'), (7, 'small'), (12, 'mid');
CREATE TABLE public.ck (k "char" NOT NULL, n name NOT NULL, v text, PRIMARY KEY (k, n));
INSERT INTO public.ck VALUES ('b', 'x', '1'), ('a', 'z', '2'), ('b', 'a', '3');
-- @section stream
INSERT INTO public.me VALUES (3.25, 'streamed');
UPDATE public.mo SET v = 'c' WHERE k = 1.5::money;
