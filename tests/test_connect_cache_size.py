"""`schemas.cache.size` as each converter class reads it, against what Debezium 3.6.3 did at start (session 23,
`differential_connect diff` on pg_connect.sql with ExtractNewRecordState or no transform; the oracle's
`golden.meta.json` error, or the records it wrote):

- JsonConverterConfig defines it as an INT without a validator: `abc` fails the start (`Invalid value abc for
  configuration schemas.cache.size: Not a number of type INT`) for the key and value converters, the header
  converter and the CloudEventsConverter's `json.` data converter alike; `-1` and `0` run (an LRU cache that
  keeps nothing) and write the same records (case pg_json_schemas_cache_negative);
- Confluent's AvroConverter (`abc`, `-1`), the CloudEventsConverter itself and its `avro.` data converter
  (`abc`) ran.

The emulator must refuse at start (ConfigError naming the property) exactly where Debezium did. Before: the header
and `json.` values were not read (accepted: Debezium failed, the emulator ran), the Avro / CloudEvents ones and
every `-1` refused (the settings typed both converters' option as an INT of minimum 0, whatever the class)."""

from __future__ import annotations

import pytest

from emulator.config import ConfigError, from_dict
from emulator.connect import dataplane

BASE = {
    "name": "connect-pg",
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "database.hostname": "127.0.0.1",
    "database.port": "5432",
    "database.user": "postgres",
    "database.password": "postgres",
    "database.dbname": "postgres",
    "topic.prefix": "dbserver1",
    "plugin.name": "pgoutput",
}
JSON = "org.apache.kafka.connect.json.JsonConverter"
AVRO = "io.confluent.connect.avro.AvroConverter"
CE = "io.debezium.converters.CloudEventsConverter"
NOT_INT = "Invalid value abc for configuration schemas.cache.size: Not a number of type INT"

# (the options, the property refused or None where Debezium ran, what Debezium said)
OUTCOMES = [
    ({"value.converter.schemas.cache.size": "abc"}, "value.converter.schemas.cache.size", NOT_INT),
    (
        {"value.converter.schemas.cache.size": "-1", "key.converter.schemas.cache.size": "0"},
        None,
        "24 records",
    ),
    (
        {"header.converter": JSON, "header.converter.schemas.cache.size": "abc"},
        "header.converter.schemas.cache.size",
        NOT_INT,
    ),
    (
        {"value.converter": CE, "value.converter.json.schemas.cache.size": "abc"},
        "value.converter.json.schemas.cache.size",
        NOT_INT,
    ),
    ({"value.converter": CE, "value.converter.schemas.cache.size": "abc"}, None, "ran"),
    (
        {
            "value.converter": CE,
            "value.converter.data.serializer.type": "avro",
            "value.converter.avro.schema.registry.url": "mock://c1",
            "value.converter.avro.schemas.cache.size": "abc",
        },
        None,
        "28 records, equal",
    ),
    (
        {"value.converter": AVRO, "value.converter.schema.registry.url": "mock://a2"}
        | {"value.converter.schemas.cache.size": "abc"},
        None,
        "ran",
    ),
    (
        {"value.converter": AVRO, "value.converter.schema.registry.url": "mock://h1"}
        | {"value.converter.schemas.cache.size": "-1"},
        None,
        "ran",
    ),
]


@pytest.mark.parametrize("opts,refused,debezium", OUTCOMES, ids=[str(i) for i in range(len(OUTCOMES))])
def test_refused_where_debezium_failed_at_start(opts: dict, refused: str | None, debezium: str) -> None:
    config = from_dict({**BASE, **opts})
    if refused is None:
        dataplane.build(config)
        return
    with pytest.raises(ConfigError) as e:
        dataplane.build(config)
    assert str(e.value).startswith(f"{refused}: 'abc' is not an integer"), (str(e.value), debezium)
