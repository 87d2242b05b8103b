-- (session 23, refused before) topic.naming.strategy=io.debezium.schema.DefaultTopicNamingStrategy on PostgreSQL: the
-- topic is <prefix>.<catalog>.<table> and PostgreSQL's TableIds have no catalog, so public.a and other.a share
-- dbserver1.a (key and envelope schemas dbserver1.a.Key / .Envelope), snapshot, stream and incremental snapshot alike;
-- the source block and the transactions' data_collection keep the schema.
-- @set topic.naming.strategy=io.debezium.schema.DefaultTopicNamingStrategy
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE public.a (id integer PRIMARY KEY, v text);
CREATE SCHEMA other;
CREATE TABLE other.a (id integer PRIMARY KEY, v text);
INSERT INTO public.a VALUES (1, 'pub');
INSERT INTO other.a VALUES (1, 'oth');
-- @section stream
INSERT INTO public.a VALUES (2, 'pub2');
INSERT INTO other.a VALUES (2, 'oth2');
-- @quiet
INSERT INTO public.debezium_signal VALUES ('i1', 'execute-snapshot', '{"data-collections": ["other.a"], "type": "incremental"}');
-- @quiet
INSERT INTO other.a VALUES (3, 'oth3');
