"""Typed settings (emulator.settings): built once from a validated Config, defaults from the table only.

Expected values are written by hand from Debezium 3.6.3's documentation (/work/shared/spec) and Kafka
Connect's worker defaults, not taken from the code under test.
"""

from __future__ import annotations

import dataclasses

import pytest

from emulator.config import NO_EFFECT, PROPERTIES, ConfigError, from_dict, status_of
from emulator.settings import BinlogSettings, MongoSettings, PostgresSettings, settings_for
from emulator.settings.fields import properties_of

PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "topic.prefix": "shop",
    "database.hostname": "localhost",
    "database.user": "postgres",
    "database.password": "s3cret",
    "database.dbname": "shop",
    "plugin.name": "pgoutput",
}
MARIADB = {
    "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
    "topic.prefix": "shop",
    "database.hostname": "localhost",
    "database.user": "root",
    "database.server.id": "5400",
}
MYSQL = {**MARIADB, "connector.class": "io.debezium.connector.mysql.MySqlConnector"}
MONGO = {
    "connector.class": "io.debezium.connector.mongodb.MongoDbConnector",
    "topic.prefix": "shop",
    "mongodb.connection.string": "mongodb://user:pw@localhost/?replicaSet=rs0",
}
BASES = {"postgres": PG, "mysql": MYSQL, "mariadb": MARIADB, "mongodb": MONGO}

# Rows read outside the typed settings, each with the reason.  Worker/pass-through properties whose
# consumers read them with the rest of their family (the converter, transform and client options).
PASS_THROUGH: dict[str, str] = {
    # read where the configuration is printed (settings.raw.Config._secret masks the keys it matches), which
    # happens before and without typed settings: a log only, no record
    "custom.sanitize.pattern": "Config._secret",
}


def test_debezium_defaults_postgres() -> None:
    s = settings_for(from_dict(PG))
    assert isinstance(s, PostgresSettings)
    assert s.connector == "postgres"
    assert s.topics.prefix == "shop"
    assert s.topics.delimiter == "."
    assert s.heartbeat.topic_prefix == "__debezium-heartbeat"
    assert s.tx.topic_suffix == "transaction"
    assert s.topics.topic(s.tx.topic_suffix) == "shop.transaction"
    assert s.common.tombstones_on_delete is True
    assert s.common.skipped_operations == frozenset({"t"})
    assert s.snapshot.mode == "initial"
    assert s.snapshot.fetch_size == 10240
    assert s.signals.poll_interval_ms == 5000
    assert s.signals.enabled_channels == ("source",)
    assert s.signals.kafka_topic == "shop-signal"
    assert s.incremental.chunk_size == 1024
    assert s.incremental.watermarking_strategy == "insert_insert"
    assert s.heartbeat.interval_ms == 0 and not s.heartbeat.enabled
    assert s.tx.enabled is False
    assert s.errors.max_retries == -1
    assert s.errors.retriable_restart_wait_ms == 10000
    # Kafka Connect worker defaults (WorkerConfig / StandaloneConfig)
    assert s.offsets.flush_interval_ms == 60000
    assert s.offsets.flush_timeout_ms == 5000
    assert s.offsets.exactly_once is False  # exactly.once.source.support: disabled
    assert s.converters.key == "org.apache.kafka.connect.json.JsonConverter"
    assert s.converters.header == "org.apache.kafka.connect.storage.SimpleHeaderConverter"
    assert s.relational.port == 5432
    assert s.relational.decimal_handling_mode == "precise"
    assert s.relational.time_precision_mode == "adaptive"
    assert s.postgres.slot_name == "debezium"
    assert s.postgres.publication_name == "dbz_publication"
    assert s.postgres.publication_autocreate_mode == "all_tables"
    assert s.postgres.status_update_interval_ms == 10000
    assert s.postgres.flush_lsn_source is True
    assert s.postgres.money_fraction_digits == 2


def test_debezium_defaults_binlog_and_mongodb() -> None:
    maria = settings_for(from_dict(MARIADB))
    assert isinstance(maria, BinlogSettings) and maria.mariadb and maria.flavor == "mariadb"
    assert maria.relational.port == 3306
    assert maria.relational.time_precision_mode == "adaptive_time_microseconds"
    assert maria.relational.snapshot_locking_mode == "minimal"
    assert maria.binlog.ssl_mode == "disable"
    assert maria.binlog.include_schema_changes is True
    assert maria.binlog.bigint_unsigned_handling_mode == "long"
    assert maria.snapshot.fetch_size is None
    assert maria.topics.naming_strategy == "io.debezium.schema.DefaultTopicNamingStrategy"
    mysql = settings_for(from_dict(MYSQL))
    assert isinstance(mysql, BinlogSettings) and not mysql.mariadb
    assert mysql.binlog.ssl_mode == "preferred"
    mongo = settings_for(from_dict(MONGO))
    assert isinstance(mongo, MongoSettings)
    assert mongo.mongodb.capture_mode == "change_streams_update_full"
    assert mongo.mongodb.authsource == "admin"
    assert mongo.mongodb.server_selection_timeout_ms == 30000
    assert mongo.mongodb.cursor_pipeline == ()
    assert mongo.snapshot.fetch_size == 0


def test_configured_values_are_typed() -> None:
    s = settings_for(
        from_dict(
            {
                **PG,
                "skipped.operations": "none",
                "snapshot.mode": "NO_DATA",
                "table.include.list": "public.orders,public.items",
                "message.key.columns": "public.orders:id,region",
                "column.truncate.to.4.chars": "public.orders.note",
                "column.mask.hash.SHA-256.with.salt.pepper": "public.orders.email",
                "snapshot.select.statement.overrides": "public.orders",
                "snapshot.select.statement.overrides.public.orders": "SELECT * FROM public.orders WHERE id > 3;",
                "offset.flush.interval.ms": "250",
                "heartbeat.interval.ms": "1000",
                "signal.data.collection": " public.signals ",
            }
        )
    )
    assert s.common.skipped_operations == frozenset()
    assert s.snapshot.mode == "no_data"
    assert [p.pattern for p in s.relational.table_include] == [
        r"\A(?:public.orders)\Z",
        r"\A(?:public.items)\Z",
    ]
    assert s.relational.table_include[0].fullmatch("PUBLIC.ORDERS")  # case-insensitive, as Debezium
    ((table, cols),) = s.relational.message_key_columns
    assert table.fullmatch("public.orders") and cols == ("id", "region")
    kinds = {m.kind: m.arg for m in s.relational.column_mappers}
    # the hash's third part: False for V1 (column.mask.hash.*), True for column.mask.hash.v2.*
    assert kinds == {"truncate": 4, "hash": ("sha256", b"pepper", False)}
    assert s.relational.snapshot_select_overrides == ("public.orders",)
    assert s.relational.snapshot_select_statements == {
        "public.orders": "SELECT * FROM public.orders WHERE id > 3"
    }
    assert s.offsets.flush_interval_ms == 250
    assert s.heartbeat.enabled
    assert s.signals.data_collection == "public.signals"


def test_bad_typed_values_are_refused_by_validation() -> None:
    """Refused at the front door (from_dict, so the CLI exits 2 before connecting), naming the property."""
    for props, name in (
        ({**PG, "column.mask.hash.NOPE.with.salt.x": "public.t.c"}, "column.mask.hash.NOPE.with.salt.x"),
        ({**MONGO, "cursor.pipeline": '{"$match": {}}'}, "cursor.pipeline"),
        ({**MONGO, "cursor.pipeline": "[{"}, "cursor.pipeline"),
        ({**PG, "offset.storage.partitions": "many"}, "offset.storage.partitions"),
    ):
        with pytest.raises(ConfigError) as err:
            from_dict(props)
        assert err.value.property == name
        assert "\n" not in str(err.value)


def test_column_mapper_lists_split_like_debezium() -> None:
    """Strings.setOfRegex: a backslash-escaped comma belongs to the regex; matching is case-insensitive."""
    s = settings_for(from_dict({**PG, "column.mask.with.3.chars": "public.t.a\\,b, PUBLIC.T.C"}))
    (mapper,) = s.relational.column_mappers
    assert [p.pattern for p in mapper.patterns] == ["public.t.a,b", "PUBLIC.T.C"]
    assert mapper.patterns[1].fullmatch("public.t.c")


def test_settings_are_frozen_and_hide_secrets() -> None:
    s = settings_for(from_dict(PG))
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.topics.prefix = "other"  # type: ignore[misc]
    assert "s3cret" not in repr(s)
    assert "pw@" not in repr(settings_for(from_dict(MONGO)))


@pytest.mark.parametrize("kind", sorted(BASES))
def test_every_property_is_read_by_a_settings_field(kind: str) -> None:
    """Every implemented or no-effect row of the table for this connector is read by one settings field
    (or listed in PASS_THROUGH with a reason); refused properties need no field."""
    read = properties_of(settings_for(from_dict(BASES[kind])))
    missing = sorted(
        {
            spec.name
            for spec in PROPERTIES
            if kind in spec.applies
            and status_of(spec) in ("implemented", NO_EFFECT)
            and spec.name not in read
            and spec.name not in PASS_THROUGH
        }
    )
    assert missing == []


def test_fields_name_real_properties() -> None:
    """A field's property is a row of the table (or a worker property outside it, listed here)."""
    from emulator.config import property_spec

    worker = {
        "offset.storage.topic",
        "offset.storage.partitions",
        "offset.storage.replication.factor",
        "transaction.boundary.interval.ms",
        "exactly.once.source.support",
        "database.connect.timeout.ms",  # a JDBC pass-through: libpq's connect_timeout
    }
    for kind, base in BASES.items():
        for name in properties_of(settings_for(from_dict(base))):
            assert name in worker or property_spec(name) is not None or "<" in name, (kind, name)


def test_built_once_per_config() -> None:
    import dataclasses as dc

    config = from_dict(PG)
    assert settings_for(config) is settings_for(config)
    changed = dc.replace(config, props={**config.props, "slot.name": "other"})
    assert settings_for(changed).postgres.slot_name == "other"
    assert settings_for(config).postgres.slot_name == "debezium"


def _recorded_configs() -> list[tuple[str, dict[str, str]]]:
    """The connector configurations real Debezium 3.6.3 ran with for the recordings in tests/data."""
    import json
    from pathlib import Path

    out = []
    for path in sorted((Path(__file__).parent / "data").rglob("*.json")):
        try:
            meta = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(meta, dict) and isinstance(meta.get("connector_config"), dict):
            props = {str(k): str(v) for k, v in meta["connector_config"].items()}
            props.setdefault("database.hostname", "127.0.0.1")  # scrubbed from some recordings
            out.append((path.parent.name + "/" + path.name, props))
    return out


def test_recorded_debezium_configs_give_their_values() -> None:
    """Every configuration a recording ran real Debezium with builds settings, and the typed values are the
    recorded strings (so a typed reading never changes what Debezium was told)."""
    configs = _recorded_configs()
    assert len(configs) > 50
    for where, props in configs:
        s = settings_for(from_dict(props))
        assert s.topics.prefix == props["topic.prefix"], where
        if "snapshot.mode" in props:
            assert s.snapshot.mode == props["snapshot.mode"].strip().lower(), where
        for name, value in (
            ("tombstones.on.delete", s.common.tombstones_on_delete),
            ("provide.transaction.metadata", s.tx.enabled),
            ("key.converter.schemas.enable", s.converters.key_schemas_enable),
        ):
            if name in props:
                assert value is (props[name].strip().lower() == "true"), (where, name)
        for name, number in (
            ("offset.flush.interval.ms", s.offsets.flush_interval_ms),
            ("heartbeat.interval.ms", s.heartbeat.interval_ms),
            ("incremental.snapshot.chunk.size", s.incremental.chunk_size),
        ):
            if name in props:
                assert number == int(props[name]), (where, name)


def test_initial_statements_are_split_once() -> None:
    """database.initial.statements: ';' separates, ';;' is a literal semicolon (Debezium's documentation)."""
    s = settings_for(
        from_dict({**PG, "database.initial.statements": "SET a = 1; SELECT ';;' ;;x;  ;SET b = 2"})
    )
    assert s.relational.initial_statements == ("SET a = 1", "SELECT ';' ;x", "SET b = 2")


def test_replica_identity_autoset_values_are_typed() -> None:
    s = settings_for(
        from_dict({**PG, "replica.identity.autoset.values": "public.orders:FULL, inventory.*:index idx_key"})
    )
    full, index = s.postgres.replica_identity_autoset
    assert (full.identity, full.index) == ("FULL", None) and full.pattern.fullmatch("PUBLIC.ORDERS")
    assert (index.identity, index.index) == ("INDEX", "idx_key") and index.pattern.fullmatch(
        "inventory.items"
    )


# Debezium defaults the emulator refuses on purpose, with the reason (docs/properties.md)
REFUSED_DEFAULTS = {("postgres", "plugin.name"): "decoderbufs: the emulator decodes pgoutput only"}


@pytest.mark.parametrize("kind", sorted(BASES))
def test_writing_a_debezium_default_explicitly_is_accepted(kind: str) -> None:
    """A user who writes a property's Debezium 3.6.3 default in the file gets what leaving it out gives:
    never a refusal (regression: schema.history.internal.store.only.captured.databases.ddl=false, the
    default, was refused while unset meant false)."""
    refused = []
    for spec in PROPERTIES:
        if spec.pattern is not None or spec.default is None or callable(spec.default):
            continue
        if kind not in spec.applies or status_of(spec) == "refused" or (kind, spec.name) in REFUSED_DEFAULTS:
            continue
        try:
            explicit = settings_for(from_dict({**BASES[kind], spec.name: spec.default}))
        except ConfigError as exc:
            refused.append(str(exc))
            continue
        implicit = settings_for(from_dict(BASES[kind]))
        path = properties_of(implicit)[spec.name]
        assert _at(explicit, path) == _at(implicit, path), spec.name
    assert refused == []


def _at(settings: object, path: str) -> object:
    for part in path.split("."):
        settings = getattr(settings, part)
    return settings


def test_config_stays_a_plain_dataclass() -> None:
    """The cached settings are no field of Config: asdict and equality see the properties only."""
    config = from_dict(PG)
    assert "_settings" not in {f.name for f in dataclasses.fields(config)}
    assert dataclasses.asdict(config)["props"]["topic.prefix"] == "shop"
    assert config == from_dict(PG)


@pytest.mark.parametrize(("value", "expected"), [("enabled", True), (" Enabled ", True), ("disabled", False)])
def test_exactly_once_source_support(value: str, expected: bool) -> None:
    s = settings_for(from_dict({**PG, "exactly.once.source.support": value}))
    assert s.offsets.exactly_once is expected


def test_type_configs_from_settings() -> None:
    """The connectors' TypeConfig built from settings: Debezium's defaults (the same as the dataclass's own,
    written by hand here), and configured modes lower-cased."""
    from emulator.connectors.mysql.types import TypeConfig as BinlogTypes
    from emulator.connectors.postgres.types import TypeConfig as PgTypes

    assert PgTypes.from_settings(settings_for(from_dict(PG))) == PgTypes(
        decimal_handling_mode="precise",
        time_precision_mode="adaptive",
        binary_handling_mode="bytes",
        interval_handling_mode="numeric",
        hstore_handling_mode="json",
        money_fraction_digits=2,
        unavailable_value_placeholder="__debezium_unavailable_value",
        include_unknown_datatypes=False,
    )
    pg = {
        **PG,
        "decimal.handling.mode": "STRING",
        "time.precision.mode": "connect",
        "binary.handling.mode": "hex",
        "interval.handling.mode": "string",
        "hstore.handling.mode": "map",
        "money.fraction.digits": "4",
        "unavailable.value.placeholder": "?",
        "include.unknown.datatypes": "true",
    }
    assert PgTypes.from_settings(settings_for(from_dict(pg))) == PgTypes(
        "string", "connect", "hex", "string", "map", 4, "?", True
    )
    for base, mariadb in ((MYSQL, False), (MARIADB, True)):
        # the MySqlConnector prints snapshot TIMESTAMPs trimmed (java.sql.Timestamp); the MariaDbConnector
        # has its own UUID type
        assert BinlogTypes.from_settings(settings_for(from_dict(base))) == BinlogTypes(
            decimal_mode="precise",
            bigint_unsigned_mode="long",
            binary_mode="bytes",
            time_precision_mode="adaptive_time_microseconds",
            snapshot_timestamp_trimmed=not mariadb,
            mariadb_connector=mariadb,
        )
    mysql = {
        **MYSQL,
        "decimal.handling.mode": "double",
        "bigint.unsigned.handling.mode": "precise",
        "binary.handling.mode": "base64",
        "time.precision.mode": "connect",
    }
    assert BinlogTypes.from_settings(settings_for(from_dict(mysql))) == BinlogTypes(
        "double", "precise", "base64", "connect", snapshot_timestamp_trimmed=True
    )


def test_blank_publication_name_is_the_default_publication() -> None:
    assert (
        settings_for(from_dict({**PG, "publication.name": ""})).postgres.publication_name == "dbz_publication"
    )
    assert settings_for(from_dict({**PG, "publication.name": "pub_x"})).postgres.publication_name == "pub_x"


def test_libpq_conninfo_from_settings() -> None:
    from psycopg.conninfo import conninfo_to_dict

    from emulator.connectors.postgres.conninfo import libpq_conninfo

    unset = conninfo_to_dict(libpq_conninfo(settings_for(from_dict(PG))))
    assert (unset["port"], unset["sslmode"], unset["connect_timeout"]) == ("5432", "prefer", "30")
    assert "keepalives" not in unset
    set_ = conninfo_to_dict(
        libpq_conninfo(
            from_dict({**PG, "database.connect.timeout.ms": "2500", "database.tcpKeepAlive": "false"})
        )
    )
    assert (set_["connect_timeout"], set_["keepalives"]) == ("2", "0")
    with pytest.raises(ConfigError, match=r"database\.connect\.timeout\.ms"):
        settings_for(from_dict({**PG, "database.connect.timeout.ms": "soon"}))


def test_skipped_operations_set_is_whether_the_key_is_configured() -> None:
    assert settings_for(from_dict(PG)).common.skipped_operations_set is False
    none = settings_for(from_dict({**PG, "skipped.operations": "none"})).common
    assert none.skipped_operations_set is True and none.skipped_operations == frozenset()


def test_prefixed_options_of_a_transform() -> None:
    s = settings_for(
        from_dict(
            {
                **PG,
                "transforms": " unwrap , route",
                "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
                "transforms.unwrap.drop.tombstones": "false",
                "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
                "transforms.route.regex": "(.*)",
                "transforms.route.replacement": "$1",
            }
        )
    )
    assert s.common.transforms == ("unwrap", "route")
    assert s.prefixed("transforms.unwrap.") == {
        "type": "io.debezium.transforms.ExtractNewRecordState",
        "drop.tombstones": "false",
    }
