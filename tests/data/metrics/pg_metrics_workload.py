"""The workload behind pg_metrics.json: shared by its recorder (real Debezium) and the emulator's test."""

PREFIX = "mx"

WORKLOAD_PRE = """
CREATE SCHEMA mx;
CREATE TABLE mx.t (id int PRIMARY KEY, v text);
CREATE TABLE mx.u (id int PRIMARY KEY, n int);
CREATE TABLE mx.ignored (id int PRIMARY KEY);
INSERT INTO mx.t SELECT g, 'r' || g FROM generate_series(1, 25) g;
INSERT INTO mx.u SELECT g, g FROM generate_series(1, 3) g;
"""

# each string runs through psql (statements autocommit unless BEGIN/COMMIT), one after another
WORKLOAD_STREAM = [
    "".join(f"INSERT INTO mx.t VALUES ({i}, 'n');" for i in range(26, 36)),  # 10 transactions
    "UPDATE mx.t SET v = 'u' WHERE id = 1;",
    "DELETE FROM mx.t WHERE id = 2;",
    "BEGIN; INSERT INTO mx.u VALUES (10, 1); UPDATE mx.u SET n = 2 WHERE id = 10; DELETE FROM mx.u WHERE id = 1; COMMIT;",
    "UPDATE mx.t SET id = 100 WHERE id = 3;",  # a primary-key change
    "INSERT INTO mx.ignored VALUES (1);",  # not captured
]


def connector_props(port: int, offsets: str) -> dict[str, str]:
    return {
        "name": "mx",
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1",
        "database.port": str(port),
        "database.user": "postgres",
        "database.password": "postgres",
        "database.dbname": "postgres",
        "topic.prefix": PREFIX,
        "plugin.name": "pgoutput",
        "slot.name": "mx",
        "publication.name": "mx_pub",
        "table.include.list": "mx.t,mx.u",
        "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
        "offset.storage.file.filename": offsets,
        "offset.flush.interval.ms": "1000",
    }
