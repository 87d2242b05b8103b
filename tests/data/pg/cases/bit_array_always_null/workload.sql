-- (session 22, found by the s22 `arrays` draw) bit(n)[] columns: Debezium's PostgresValueConverter gives BIT_ARRAY
-- the schema of one bit(n) (io.debezium.data.Bits of length n; boolean for bit(1) and bit[]) and the array
-- converter; the List fails Connect's put, TableSchemaBuilder leaves the field null (converting `warn`). So the
-- field is always null, in the snapshot and the stream, before and after. The emulator left the column out.
-- varbit[] has no schema (left out by both).
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.ba (id integer PRIMARY KEY, b4 bit(4)[], b1 bit(1)[], bd bit[], vb varbit[], v text);
INSERT INTO public.ba VALUES (1, ARRAY[B'1010', B'0000']::bit(4)[], '{1,0}', ARRAY[B'1'], '{101}', 'a'), (2, NULL, NULL, NULL, NULL, 'b'), (3, '{}', '{}', '{NULL}', '{}', 'c');
ALTER TABLE public.ba REPLICA IDENTITY FULL;
-- @section stream
INSERT INTO public.ba VALUES (4, ARRAY[B'1111']::bit(4)[], ARRAY[B'1'], ARRAY[B'0', NULL], ARRAY[B'11'], 'd');
UPDATE public.ba SET b4 = ARRAY[B'0101']::bit(4)[], v = 'a2' WHERE id = 1;
DELETE FROM public.ba WHERE id = 3;
-- @quiet
INSERT INTO public.debezium_signal VALUES ('i1', 'execute-snapshot', '{"data-collections": ["public.ba"], "type": "incremental"}');
-- @quiet
INSERT INTO public.ba VALUES (5, NULL, '{0}', NULL, NULL, 'e');
