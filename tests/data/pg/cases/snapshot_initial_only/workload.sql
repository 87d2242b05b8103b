-- Case snapshot_initial_only: the initial snapshot, then nothing of the stream section is captured
-- (Debezium's task idles, the emulator exits 0).
-- @set snapshot.mode=initial_only
-- @section pre
CREATE TABLE public.debezium_signal (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));
CREATE TABLE public.items (id int PRIMARY KEY, name text NOT NULL, price numeric(10,2), tags text[]);
INSERT INTO public.items VALUES (1, 'one', 1.50, '{a,b}'), (2, 'two', NULL, NULL);
CREATE TABLE public.empty_one (id int PRIMARY KEY);
-- @section stream
INSERT INTO public.items VALUES (3, 'three', 3.00, '{c}');
UPDATE public.items SET name = 'uno' WHERE id = 1;
