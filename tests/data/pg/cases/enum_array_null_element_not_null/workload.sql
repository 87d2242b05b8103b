-- A NOT NULL enum[] streamed with a NULL element: the array's null (its required elements fail Connect's
-- validation) fails the required field and Debezium stops; so does the emulator, naming the column.
-- @set provide.transaction.metadata=false
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE public.eb (id integer PRIMARY KEY, ea mood[] NOT NULL);
INSERT INTO public.eb VALUES (1, '{sad}');
-- @section stream
INSERT INTO public.eb VALUES (3, '{ok,NULL}');
INSERT INTO public.eb VALUES (4, '{happy}');
