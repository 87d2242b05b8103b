"""The property table: one row per property (and per connector kind where Debezium differs), split and
annotated by the audit (:mod:`emulator.settings.audit`), and the lookup of a row by name."""

from __future__ import annotations

import re

from emulator.settings.audit import split_by_audit
from emulator.settings.checks import (
    FAILURE_MODES,
    SNAPSHOT_MODES_BINLOG,
    SNAPSHOT_MODES_MONGO,
    SNAPSHOT_MODES_PG,
    TIME_PRECISION,
    check_key_columns,
    check_metric_tags,
    check_mongodb_connection_string,
    check_notification_channels,
    check_replica_identity,
    check_sanitize_pattern,
    check_signal_channels,
    check_skipped_operations,
    check_slot_name,
    check_topic_prefix,
    converter_check,
    header_converter_default,
    lsn_flush_mode_default,
    signal_topic_default,
)
from emulator.settings.spec import (
    BINLOG,
    BOOL,
    CLASS,
    DATA_CONVERTERS,
    HEADER_CONVERTERS,
    INT,
    JSON_CONVERTER,
    LIST,
    LONG,
    MA,
    MO,
    MY,
    PASSWORD,
    PG,
    REGEX_LIST,
    REL,
    SHORT,
    STRING,
    PropertySpec,
)

# the table's rows are written with one-letter local names for the two row builders: a row per line
from emulator.settings.spec import enum_row as _e
from emulator.settings.spec import prop_row as _p

PROPERTIES: tuple[PropertySpec, ...] = (
    # ---- Kafka Connect connector-level
    _p("name", STRING),
    _p("connector.class", CLASS, required=True),
    _p("tasks.max", INT, 1, min=1),
    _p("transforms", LIST),
    _p("predicates", LIST),
    _e("errors.tolerance", ("none", "all"), "none"),
    _p("errors.retry.timeout", LONG, 0),
    _p("errors.retry.delay.max.ms", LONG, 60000),
    _p("errors.log.enable", BOOL, False),
    _p("errors.log.include.messages", BOOL, False),
    # ---- worker-level settings users put in the same file
    _p("offset.storage", CLASS),
    _p("offset.storage.file.filename", STRING),
    _p("offset.flush.interval.ms", LONG, 60000, min=0),
    _p("offset.flush.timeout.ms", LONG, 5000, min=0),
    _p("key.converter", CLASS, JSON_CONVERTER, check=converter_check(DATA_CONVERTERS)),
    _p("value.converter", CLASS, JSON_CONVERTER, check=converter_check(DATA_CONVERTERS)),
    _p(
        "header.converter",
        CLASS,
        header_converter_default,
        check=converter_check(HEADER_CONVERTERS),
    ),
    _p("key.converter.schemas.enable", BOOL, True),
    _p("value.converter.schemas.enable", BOOL, True),
    _p("header.converter.schemas.enable", BOOL, True),
    _e("key.converter.decimal.format", ("base64", "numeric"), "base64"),
    _e("value.converter.decimal.format", ("base64", "numeric"), "base64"),
    _p("key.converter.replace.null.with.default", BOOL, True),
    _p("value.converter.replace.null.with.default", BOOL, True),
    # text here: the converter class decides. JsonConverterConfig's INT has no minimum (a negative size is an LRU
    # cache that keeps nothing: Debezium 3.6.3 ran -1, case pg_json_schemas_cache_negative) and is checked by
    # converters._json; Debezium ran Confluent's AvroConverter and the CloudEventsConverter with `abc` (session 23)
    _p("key.converter.schemas.cache.size", STRING, "1000"),
    _p("value.converter.schemas.cache.size", STRING, "1000"),
    # ---- common Debezium connector settings
    _p("topic.prefix", STRING, required=True, check=check_topic_prefix),
    _p("errors.max.retries", INT, -1),
    _p("retriable.restart.connector.wait.ms", LONG, 10000, min=1),
    _p("tombstones.on.delete", BOOL, True),
    _p("max.queue.size", INT, 8192, min=1),
    _p("max.batch.size", INT, 2048, min=1),
    _p("max.queue.size.in.bytes", LONG, 0, min=0),
    _p("poll.interval.ms", LONG, 500, min=1),
    _p("query.fetch.size", INT, 0, min=0),
    _p("provide.transaction.metadata", BOOL, False),
    _e("event.processing.failure.handling.mode", FAILURE_MODES, "fail"),
    _e("event.converting.failure.handling.mode", ("fail", "warn", "skip"), "warn"),
    _p("converters", LIST),
    _p("post.processors", LIST),
    _p("skipped.operations", LIST, "t", check=check_skipped_operations),
    _p("skip.messages.without.change", BOOL, False),
    _e("schema.name.adjustment.mode", ("none", "avro", "avro_unicode"), "none"),
    _e("field.name.adjustment.mode", ("none", "avro", "avro_unicode"), "none"),
    _p("custom.metric.tags", LIST, check=check_metric_tags),
    _e("source.struct.version", ("v1", "v2"), "v2"),
    _p("sourceinfo.struct.maker", CLASS),
    _p("guardrail.collections.max", INT, 0, min=0),
    _e("guardrail.collections.limit.action", ("warn", "fail"), "warn"),
    # heartbeats, topics
    _p("heartbeat.interval.ms", INT, 0, min=0),
    _p("heartbeat.action.query", STRING, applies=REL),
    _p("topic.heartbeat.prefix", STRING, "__debezium-heartbeat"),
    _p("topic.transaction", STRING, "transaction"),
    _p("topic.delimiter", STRING, "."),
    _p("topic.cache.size", INT, 10000, min=1),
    _p("topic.naming.strategy", CLASS, "io.debezium.schema.SchemaTopicNamingStrategy", PG),
    _p("topic.naming.strategy", CLASS, "io.debezium.schema.DefaultTopicNamingStrategy", BINLOG | MO),
    # signals and notifications
    _p("signal.data.collection", STRING),
    _p("signal.poll.interval.ms", LONG, 5000, min=1),
    _p("signal.enabled.channels", LIST, "source", check=check_signal_channels),
    _p("signal.kafka.topic", STRING, signal_topic_default),
    _p("signal.kafka.groupId", STRING, "kafka-signal"),
    _p("signal.kafka.bootstrap.servers", STRING),
    _p("signal.kafka.poll.timeout.ms", LONG, 100, min=0),
    _p("signal.kafka.consumer.offset.commit.enabled", BOOL, False),
    _p("kafka.consumer.offset.commit.enabled", BOOL, False),
    _p("signal.file", STRING, "file-signals.txt"),
    _p("notification.enabled.channels", LIST, check=check_notification_channels),
    _p("notification.sink.topic.name", STRING),
    # snapshots
    _e("snapshot.mode", SNAPSHOT_MODES_PG, "initial", PG),
    _e("snapshot.mode", SNAPSHOT_MODES_BINLOG, "initial", BINLOG),
    _e("snapshot.mode", SNAPSHOT_MODES_MONGO, "initial", MO),
    _p("snapshot.mode.custom.name", STRING),
    _p("snapshot.mode.configuration.based.snapshot.data", BOOL, False),
    _p("snapshot.mode.configuration.based.snapshot.schema", BOOL, False),
    _p("snapshot.mode.configuration.based.start.stream", BOOL, False),
    _p("snapshot.mode.configuration.based.snapshot.on.schema.error", BOOL, False),
    _p("snapshot.mode.configuration.based.snapshot.on.data.error", BOOL, False),
    _p("snapshot.delay.ms", LONG, 0, min=0),
    _p("streaming.delay.ms", LONG, 0, min=0),
    _p("snapshot.fetch.size", INT, 10240, PG, min=0),
    _p("snapshot.fetch.size", INT, None, BINLOG, min=0),
    _p("snapshot.fetch.size", INT, 0, MO, min=0),
    _p("snapshot.max.threads", INT, 1, min=1),
    _p("snapshot.max.threads.multiplier", INT, 1, min=1),
    _p("snapshot.include.collection.list", REGEX_LIST),
    _e("snapshot.locking.mode", ("shared", "none", "custom"), "none", PG),
    # (the MySqlConnector's own list in 3.6.3 has no minimal_at_least_once: Debezium refuses it at start, campaign
    # seed 75009; minimal_percona_no_table_locks it accepts is not emulated)
    _e("snapshot.locking.mode", ("minimal", "minimal_percona", "extended", "none", "custom"), "minimal", MY),
    _e(
        "snapshot.locking.mode",
        ("minimal", "minimal_at_least_once", "extended", "none", "custom"),
        "minimal",
        MA,
    ),
    _p("snapshot.locking.mode.custom.name", STRING, applies=REL),
    _e("snapshot.query.mode", ("select_all", "custom"), "select_all", REL),
    _p("snapshot.query.mode.custom.name", STRING, applies=REL),
    _p("snapshot.select.statement.overrides", LIST, applies=REL),
    _p("snapshot.lock.timeout.ms", LONG, 10000, REL),
    _e("snapshot.tables.order.by.row.count", ("disabled", "ascending", "descending"), "disabled", REL),
    _e(
        "snapshot.isolation.mode",
        ("serializable", "repeatable_read", "read_committed", "read_uncommitted"),
        "serializable",
        PG,
    ),
    _p("snapshot.collection.filter.overrides", STRING, applies=MO),
    # incremental snapshots
    _p("incremental.snapshot.chunk.size", INT, 1024, min=0),
    _e("incremental.snapshot.watermarking.strategy", ("insert_insert", "insert_delete"), "insert_insert"),
    _p("incremental.snapshot.allow.schema.changes", BOOL, False),
    _p("read.only", BOOL, False, REL),
    # ---- relational connectors
    _p("database.hostname", STRING, required=True, applies=REL),
    _p("database.port", INT, 5432, PG, min=1),
    _p("database.port", INT, 3306, BINLOG, min=1),
    _p("database.user", STRING, required=True, applies=REL),
    _p("database.password", PASSWORD, applies=REL),
    _p("database.query.timeout.ms", INT, 600000, REL, min=0),
    _p("database.initial.statements", STRING, applies=REL),
    _p("table.include.list", REGEX_LIST, applies=REL),
    _p("table.exclude.list", REGEX_LIST, applies=REL),
    _p("column.include.list", REGEX_LIST, applies=REL),
    _p("column.exclude.list", REGEX_LIST, applies=REL),
    _p("table.ignore.builtin", BOOL, True, REL),
    _p("message.key.columns", STRING, applies=REL, check=check_key_columns),
    _p("column.propagate.source.type", REGEX_LIST, applies=REL),
    _p("datatype.propagate.source.type", REGEX_LIST, applies=REL),
    _e("decimal.handling.mode", ("precise", "double", "string"), "precise", REL),
    _e("binary.handling.mode", ("bytes", "base64", "base64-url-safe", "hex"), "bytes", REL),
    _e("time.precision.mode", TIME_PRECISION, "adaptive", PG),
    _e("time.precision.mode", TIME_PRECISION, "adaptive_time_microseconds", BINLOG),
    _p("include.schema.comments", BOOL, False, REL),
    _p("unavailable.value.placeholder", STRING, "__debezium_unavailable_value", REL),
    # templated column transformations (regex lists of fully-qualified column names)
    _p(
        "column.truncate.to.<N>.chars",
        REGEX_LIST,
        applies=REL,
        pattern=re.compile(r"column\.truncate\.to\.\d+\.chars"),
    ),
    _p(
        "column.mask.with.<N>.chars",
        REGEX_LIST,
        applies=REL,
        pattern=re.compile(r"column\.mask\.with\.\d+\.chars"),
    ),
    _p(
        "column.mask.hash.<algorithm>.with.salt.<salt>",
        REGEX_LIST,
        applies=REL,
        pattern=re.compile(r"column\.mask\.hash\.(?:v2\.)?[^.]+\.with\.salt\..+"),
    ),
    _p(
        "snapshot.max.threads.multiplier.<table>",
        INT,
        applies=REL,
        pattern=re.compile(r"snapshot\.max\.threads\.multiplier\..+"),
        min=1,
    ),
    _p(
        "snapshot.select.statement.overrides.<table>",
        STRING,
        applies=REL,
        pattern=re.compile(r"snapshot\.select\.statement\.overrides\..+"),
    ),
    # ---- PostgreSQL
    _p("database.dbname", STRING, required=True, applies=PG),
    _e(
        "database.sslmode",
        ("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
        "prefer",
        PG,
    ),
    _p("database.sslcert", STRING, applies=PG),
    _p("database.sslkey", STRING, applies=PG),
    _p("database.sslpassword", PASSWORD, applies=PG),
    _p("database.sslrootcert", STRING, applies=PG),
    _p("database.sslfactory", STRING, applies=PG),
    _p("database.tcpKeepAlive", BOOL, True, PG),
    _e("plugin.name", ("decoderbufs", "pgoutput"), "decoderbufs", PG),
    _p("slot.name", STRING, "debezium", PG, check=check_slot_name),
    _p("slot.drop.on.stop", BOOL, False, PG),
    _p("slot.failover", BOOL, False, PG),
    _p("slot.stream.params", STRING, applies=PG),
    _p("slot.max.retries", INT, 6, PG),
    _p("slot.retry.delay.ms", LONG, 10000, PG, min=0),
    _p("publication.name", STRING, "dbz_publication", PG),
    _e("publication.autocreate.mode", ("all_tables", "disabled", "filtered", "no_tables"), "all_tables", PG),
    _p("publish.via.partition.root", BOOL, False, PG),
    _p("replica.identity.autoset.values", STRING, applies=PG, check=check_replica_identity),
    _p("schema.include.list", REGEX_LIST, applies=PG),
    _p("schema.exclude.list", REGEX_LIST, applies=PG),
    _p("message.prefix.include.list", REGEX_LIST, applies=PG),
    _p("message.prefix.exclude.list", REGEX_LIST, applies=PG),
    _p("status.update.interval.ms", INT, 10000, PG, min=1),
    _p("flush.lsn.source", BOOL, True, PG),
    _e("lsn.flush.mode", ("connector", "manual", "connector_and_driver"), lsn_flush_mode_default, PG),
    _p("lsn.flush.timeout.ms", LONG, 30000, PG, min=1),
    _e("lsn.flush.timeout.action", ("fail", "warn", "ignore"), "fail", PG),
    _e(
        "offset.mismatch.strategy",
        ("no_validation", "trust_offset", "trust_slot", "trust_greater_lsn"),
        "no_validation",
        PG,
    ),
    _p("xmin.fetch.interval.ms", LONG, 0, PG, min=0),
    _p("include.unknown.datatypes", BOOL, False, PG),
    _e("schema.refresh.mode", ("columns_diff", "columns_diff_exclude_unchanged_toast"), "columns_diff", PG),
    _e("hstore.handling.mode", ("json", "map"), "json", PG),
    _e("interval.handling.mode", ("numeric", "string"), "numeric", PG),
    _p("money.fraction.digits", SHORT, 2, PG),
    # ---- MySQL / MariaDB (binlog)
    _p("database.server.id", LONG, required=True, applies=BINLOG, min=1),
    _p("database.server.id.offset", LONG, 10000, BINLOG),
    _e(
        "database.ssl.mode",
        ("disabled", "preferred", "required", "verify_ca", "verify_identity"),
        "preferred",
        MY,
    ),
    _e(
        "database.ssl.mode",
        (
            "disable",
            "trust",
            "verify-ca",
            "verify-full",
            "disabled",
            "preferred",
            "required",
            "verify_ca",
            "verify_identity",
        ),
        "disable",
        MA,
    ),
    _p("database.ssl.keystore", STRING, applies=BINLOG),
    _p("database.ssl.keystore.password", PASSWORD, applies=BINLOG),
    _p("database.ssl.truststore", STRING, applies=BINLOG),
    _p("database.ssl.truststore.password", PASSWORD, applies=BINLOG),
    _p("database.jdbc.driver", CLASS, "com.mysql.cj.jdbc.Driver", MY),
    _p("database.protocol", STRING, "jdbc:mysql", MY),
    _p("database.include.list", REGEX_LIST, applies=BINLOG | MO),
    _p("database.exclude.list", REGEX_LIST, applies=BINLOG | MO),
    _p("connect.timeout.ms", INT, 30000, BINLOG, min=1),
    _p("connect.keep.alive", BOOL, True, BINLOG),
    _p("connect.keep.alive.interval.ms", LONG, 60000, BINLOG, min=1),
    _p("use.nongraceful.disconnect", BOOL, False, BINLOG),
    _p("min.row.count.to.stream.results", INT, 1000, BINLOG, min=0),
    _p("binlog.buffer.size", INT, 0, BINLOG, min=0),
    _p("include.query", BOOL, False, BINLOG),
    _p("include.schema.changes", BOOL, True, BINLOG),
    _e("bigint.unsigned.handling.mode", ("long", "precise"), "long", BINLOG),
    _e("event.deserialization.failure.handling.mode", FAILURE_MODES, "fail", BINLOG),
    _e("inconsistent.schema.handling.mode", FAILURE_MODES, "fail", BINLOG),
    _p("enable.time.adjuster", BOOL, True, BINLOG),
    _p("gtid.source.includes", REGEX_LIST, applies=BINLOG),
    _p("gtid.source.excludes", REGEX_LIST, applies=BINLOG),
    _p("gtid.source.filter.dml.events", BOOL, True, BINLOG),
    _p("schema.history.internal", CLASS, "io.debezium.storage.kafka.history.KafkaSchemaHistory", BINLOG),
    _p("schema.history.internal.file.filename", STRING, applies=BINLOG),
    _p("schema.history.internal.kafka.topic", STRING, applies=BINLOG),
    _p("schema.history.internal.kafka.bootstrap.servers", STRING, applies=BINLOG),
    _p("schema.history.internal.kafka.recovery.poll.interval.ms", INT, 100, BINLOG, min=0),
    _p("schema.history.internal.kafka.recovery.attempts", INT, 100, BINLOG, min=1),
    _p("schema.history.internal.kafka.query.timeout.ms", LONG, 3000, BINLOG, min=1),
    _p("schema.history.internal.kafka.create.timeout.ms", LONG, 30000, BINLOG, min=1),
    _p("schema.history.internal.skip.unparseable.ddl", BOOL, False, BINLOG),
    _p("schema.history.internal.store.only.captured.tables.ddl", BOOL, False, BINLOG),
    # default false in 3.6.3: a MySqlConnector recording emits other databases' DDL (tests/data/mariadb/cases)
    _p("schema.history.internal.store.only.captured.databases.ddl", BOOL, False, BINLOG),
    # ---- MongoDB
    _p("mongodb.connection.string", STRING, required=True, applies=MO, check=check_mongodb_connection_string),
    _p(
        "mongodb.authentication.class",
        CLASS,
        "io.debezium.connector.mongodb.connection.DefaultMongoDbAuthProvider",
        MO,
    ),
    _p("mongodb.user", STRING, applies=MO),
    _p("mongodb.password", PASSWORD, applies=MO),
    _p("mongodb.authsource", STRING, "admin", MO),
    _p("mongodb.ssl.enabled", BOOL, False, MO),
    _p("mongodb.ssl.invalid.hostname.allowed", BOOL, False, MO),
    _p("mongodb.ssl.keystore", STRING, applies=MO),
    _p("mongodb.ssl.keystore.password", PASSWORD, applies=MO),
    _p("mongodb.ssl.keystore.type", STRING, "PKCS12", MO),
    _p("mongodb.ssl.truststore", STRING, applies=MO),
    _p("mongodb.ssl.truststore.password", PASSWORD, applies=MO),
    _p("mongodb.ssl.truststore.type", STRING, "PKCS12", MO),
    _p("mongodb.poll.interval.ms", LONG, 30000, MO, min=1),
    _p("mongodb.connect.timeout.ms", INT, 10000, MO, min=0),
    _p("mongodb.heartbeat.frequency.ms", INT, 10000, MO, min=0),
    _p("mongodb.socket.timeout.ms", INT, 0, MO, min=0),
    _p("mongodb.server.selection.timeout.ms", INT, 30000, MO, min=0),
    _p("internal.mongodb.allow.offset.invalidation", BOOL, False, MO),
    _e("filters.match.mode", ("regex", "literal"), "regex", MO),
    _p("collection.include.list", REGEX_LIST, applies=MO),
    _p("collection.exclude.list", REGEX_LIST, applies=MO),
    _p("field.exclude.list", STRING, applies=MO),
    _p("field.renames", STRING, applies=MO),
    _e(
        "capture.mode",
        (
            "change_streams",
            "change_streams_update_full",
            "change_streams_with_pre_image",
            "change_streams_update_full_with_pre_image",
        ),
        "change_streams_update_full",
        MO,
    ),
    _e("capture.mode.full.update.type", ("lookup", "post_image"), "lookup", MO),
    _e("capture.scope", ("deployment", "database", "collection"), "deployment", MO),
    _p("capture.target", STRING, applies=MO),
    _p("cursor.pipeline", STRING, applies=MO),
    _e("cursor.pipeline.order", ("internal_first", "user_first", "user_only"), "internal_first", MO),
    _e("cursor.oversize.handling.mode", ("fail", "skip", "split"), "fail", MO),
    _p("cursor.oversize.skip.threshold", INT, 0, MO, min=0),
    _p("cursor.max.await.time.ms", INT, 0, MO, min=0),
    # ---- documented by Debezium 3.6, not emulated beyond their defaults (see the audit below)
    _p("statistics.metrics.enabled", BOOL, False),
    _p("topic.heartbeat.name", STRING),
    _p("legacy.snapshot.max.threads", BOOL, False, REL | MO),
    _p("database.connection.factory.class", CLASS, applies=PG),
    _p("binlog.net.read.timeout", LONG, None, BINLOG),
    _p("binlog.net.write.timeout", LONG, None, BINLOG),
    _p("custom.sanitize.pattern", STRING, applies=BINLOG, check=check_sanitize_pattern),
    _e("ddl.parser.type", ("antlr",), "antlr", BINLOG),
    _p("gtid.ignore.on.recovery", STRING, applies=BINLOG),
    _p("schema.history.internal.memory.optimization", BOOL, True, BINLOG),
    _p("capture.start.op.time", LONG, None, MO),
    _p("connect.max.attempts", INT, 16, MO),
)
"""The property table: one row per property (and per connector kind where Debezium differs)."""


PROPERTIES = split_by_audit(PROPERTIES)

_BY_NAME: dict[str, list[PropertySpec]] = {}
_TEMPLATED: list[PropertySpec] = []
for _spec in PROPERTIES:
    if _spec.pattern is not None:
        _TEMPLATED.append(_spec)
    else:
        _BY_NAME.setdefault(_spec.name, []).append(_spec)

EXCLUSIVE_PAIRS: tuple[tuple[str, str], ...] = (
    ("schema.include.list", "schema.exclude.list"),
    ("database.include.list", "database.exclude.list"),
    ("table.include.list", "table.exclude.list"),
    ("collection.include.list", "collection.exclude.list"),
    ("column.include.list", "column.exclude.list"),
    ("message.prefix.include.list", "message.prefix.exclude.list"),
    ("gtid.source.includes", "gtid.source.excludes"),
)

MONGO_LITERAL_LISTS = frozenset(
    {"database.include.list", "database.exclude.list", "collection.include.list", "collection.exclude.list"}
)


def property_spec(name: str, connector: str | None = None) -> PropertySpec | None:
    """The table row for ``name`` for a connector kind (``postgres``/``mysql``/``mariadb``/``mongodb``).

    With ``connector=None`` the first row for the name is returned.  ``None`` when the property is unknown.
    """
    rows = _BY_NAME.get(name)
    if rows:
        if connector is None:
            return rows[0]
        for row in rows:
            if connector in row.applies:
                return row
        return None
    for row in _TEMPLATED:
        if (
            (connector is None or connector in row.applies)
            and row.pattern is not None
            and row.pattern.fullmatch(name)
        ):
            return row
    return None
