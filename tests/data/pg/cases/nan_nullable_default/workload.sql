-- Case nan_nullable_default (lead, session 9; pgcpu2 noticed it): NaN in a nullable numeric(8,2) with a DEFAULT under
-- decimal.handling.mode=precise. Debezium's converter gives null and JsonConverter (replace.null.with.default) prints the
-- column's default, in the snapshot and in the stream; the emulator's streaming JSON paths printed null (its dict path the
-- default). An unconstrained numeric with a default (VariableScaleDecimal) keeps its own NaN form in both.
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.nd (id integer PRIMARY KEY, q integer NOT NULL, amt numeric(8,2) DEFAULT 1.50, anum numeric DEFAULT 2.5, note text NOT NULL);
INSERT INTO public.nd VALUES (1, 1, 'NaN', 'NaN', 'a'), (2, 2, 3.25, 4.5, 'b');
-- @section stream
INSERT INTO public.nd VALUES (3, 3, 'NaN', 'NaN', 'c');
INSERT INTO public.nd VALUES (4, 4, 7.75, 'NaN', 'd');
UPDATE public.nd SET amt = 'NaN', note = 'e' WHERE id = 2;
