"""Capture.topic: the topic a table's records go to, as the connector names it (no server needed)."""

from __future__ import annotations

from emulator.api import Capture

PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "database.hostname": "127.0.0.1",
    "database.user": "u",
    "database.dbname": "d",
    "topic.prefix": "p",
    "plugin.name": "pgoutput",
}


def test_schema_topic_naming() -> None:
    assert Capture(PG).topic("public.a") == "p.public.a"
    assert Capture(PG).topic("p.public.a") == "p.public.a"  # a full topic name as it is


def test_default_topic_naming_on_postgres_drops_the_schema() -> None:
    # pg case topic_naming_default_strategy: PostgreSQL table ids have no catalog, public.a and other.a share p.a
    cap = Capture({**PG, "topic.naming.strategy": "io.debezium.schema.DefaultTopicNamingStrategy"})
    assert cap.topic("other.a") == "p.a"
    assert cap.topic("public.a") == "p.a"
