-- A deliberate difference (Debezium loses data; session 22, campaign seed 44775001, the s22 `arrays` draw): a
-- two-dimensional text array. pgjdbc's PgArray gives Debezium a String[] per sub-array and the element converter
-- prints it with Java's Object.toString: every element is "[Ljava.lang.String;@" + an identity hash that differs
-- on every conversion (the content is lost; an UPDATE to the same value is never "without change"). The emulator
-- gives each sub-array null (strict expected failure; README, deliberate differences).
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.t2 (id integer PRIMARY KEY, s text[][]);
INSERT INTO public.t2 VALUES (1, '{{a,b},{"c d",NULL}}'), (2, '{x,y}');
-- @section stream
INSERT INTO public.t2 VALUES (3, '{{e},{f}}');
