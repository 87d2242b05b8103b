"""The connector properties of a data-plane campaign draw (emulator.testing.connect_draws): the base
configuration per database and workload tables, and the connector options drawn beside the chain."""

from __future__ import annotations

import random


def base_props(db: str, tables: str) -> dict[str, str]:
    if db == "pg":
        props = {
            "name": "connect-pg",
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
            "offset.flush.interval.ms": "1000",
            "database.user": "postgres",
            "database.password": "postgres",
            "database.dbname": "postgres",
            "topic.prefix": "dbserver1",
            "plugin.name": "pgoutput",
            "slot.name": "debezium",
            "publication.name": "dbz_publication",
            "snapshot.mode": "initial",
        }
        ns = "public"
    else:
        props = {
            "name": "connect-mariadb",
            "connector.class": "io.debezium.connector.mysql.MySqlConnector",
            "database.user": "debezium",  # emulator.testing.mariadbserver.USER
            "database.server.id": "184054",
            "topic.prefix": "dbserver1",
            "database.include.list": "inventory",
            "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
            "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
            "offset.flush.interval.ms": "1000",
            "snapshot.mode": "initial",
        }
        ns = "inventory"
    if tables == "outbox":
        props["table.include.list"] = f"{ns}.outbox"
    else:
        names = ("customers", "products", "orders_2024", "orders_2025")
        props["table.include.list"] = ",".join(f"{ns}.{t}" for t in names)
    return props


def draw_connector_options(rng: random.Random, db: str) -> dict[str, str]:
    """Connector options that change the Connect schemas the transforms and converters see: temporal logical
    types (Avro's date/time/timestamp logical types), bytes encodings, schema parameters (Avro's
    connect.parameters), sanitized names, skipped operations and tombstones."""
    props: dict[str, str] = {}
    if rng.random() < 0.2:
        modes = ["connect", "adaptive_time_microseconds"] + (["isostring", "adaptive"] if db == "pg" else [])
        props["time.precision.mode"] = rng.choice(modes)
    if rng.random() < 0.15:
        props["binary.handling.mode"] = rng.choice(("base64", "hex", "base64-url-safe"))
    if rng.random() < 0.15:
        props["column.propagate.source.type"] = ".*"
    if rng.random() < 0.1:
        props["field.name.adjustment.mode"] = "avro"
    if rng.random() < 0.1:
        props["tombstones.on.delete"] = "false"
    if rng.random() < 0.1:
        props["skipped.operations"] = rng.choice(("u", "d", "c"))
    if db == "pg" and rng.random() < 0.1:
        props["interval.handling.mode"] = "string"
    return props
