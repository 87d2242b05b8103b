"""What the emulator does with each property: implemented, accepted with no effect on the records, or only
some values (any other is refused at start); docs/properties.md is generated from it."""

from __future__ import annotations

from emulator.settings.spec import (
    BINLOG,
    DATA_CONVERTERS,
    HEADER_CONVERTERS,
    MA,
    MO,
    MY,
    PG,
    REL,
    PropertySpec,
)

# What the emulator does with each property (issue 12 item 5: no property accepted and ignored). Every row of
# PROPERTIES is IMPLEMENTED (read by the code, identical to Debezium) unless listed here as
#   * NO_EFFECT: accepted; it cannot change the records (tuning, metrics, logging, retries of failures the
#     emulator does not have), so ignoring it is identical;
#   * supported values: only these (lower-cased, trimmed) values are accepted, any other is refused at start;
#     ``()`` refuses every value (the property is not supported at all).
# Where a property is listed with connector kinds, the entry applies to those rows only.

IMPLEMENTED = "implemented"
NO_EFFECT = "no effect"
REFUSED = "refused"

_NOT_SUPPORTED: tuple[str, ...] = ()

_AUDIT: dict[str, tuple[frozenset[str] | None, tuple[str, ...] | None, str, str]] = {}


def _audit(
    name: str,
    supported: tuple[str, ...] | None = None,
    effect: str = IMPLEMENTED,
    note: str = "",
    applies: frozenset[str] | None = None,
) -> None:
    _AUDIT[name if applies is None else f"{name}@{','.join(sorted(applies))}"] = (
        applies,
        supported,
        effect,
        note,
    )


# tuning, metrics, logging, connection upkeep: no effect on the records
for _name in (
    "tasks.max",
    "errors.log.enable",
    "errors.log.include.messages",
    "errors.retry.timeout",
    "errors.retry.delay.max.ms",
    "max.queue.size",
    "max.batch.size",
    "max.queue.size.in.bytes",
    "poll.interval.ms",
    "query.fetch.size",
    "snapshot.fetch.size",
    "min.row.count.to.stream.results",
    "binlog.buffer.size",
    "connect.keep.alive",
    "connect.keep.alive.interval.ms",
    "database.query.timeout.ms",
    "topic.cache.size",
    "snapshot.lock.timeout.ms",
    "custom.metric.tags",
    "key.converter.schemas.cache.size",
    "value.converter.schemas.cache.size",
    "mongodb.heartbeat.frequency.ms",
    "mongodb.poll.interval.ms",
    "use.nongraceful.disconnect",
    "database.server.id.offset",
    "database.jdbc.driver",
    "database.protocol",
    "slot.max.retries",
    "slot.retry.delay.ms",
    "lsn.flush.timeout.ms",
    "lsn.flush.timeout.action",
    "signal.kafka.poll.timeout.ms",
    "statistics.metrics.enabled",
    "binlog.net.read.timeout",
    "binlog.net.write.timeout",
    "connect.max.attempts",
    "schema.history.internal.memory.optimization",
    "schema.history.internal.kafka.recovery.poll.interval.ms",
    "schema.history.internal.kafka.recovery.attempts",
    "schema.history.internal.kafka.query.timeout.ms",
    "schema.history.internal.kafka.create.timeout.ms",
    "offset.flush.timeout.ms",
):
    _audit(_name, effect=NO_EFFECT)
# the relational connectors read with N connections and emit what Debezium's chunked (or, legacy,
# table-per-thread) parallel snapshot emits (docs/parallel-snapshot.md); MongoDB's records do not change
_audit(
    "snapshot.max.threads",
    note="N readers, Debezium 3.6's chunk order and markers (docs/parallel-snapshot.md)",
    applies=REL,
)
_audit(
    "legacy.snapshot.max.threads",
    note="table per reader, no `first` marker (docs/parallel-snapshot.md)",
    applies=REL,
)
_audit("snapshot.max.threads", effect=NO_EFFECT, applies=MO)
_audit(
    "snapshot.max.threads.multiplier",
    note="above 1 (or any table's): Debezium 3.6's chunked path, keyed tables in key order (docs/parallel-snapshot.md)",
    applies=REL,
)
_audit("snapshot.max.threads.multiplier", effect=NO_EFFECT, applies=MO)
_audit("legacy.snapshot.max.threads", effect=NO_EFFECT, applies=MO)
_audit(
    "schema.history.internal.kafka.topic",
    effect=NO_EFFECT,
    note="the emulator keeps the history in schema.history.internal.file.filename (or memory)",
)
_audit(
    "schema.history.internal.kafka.bootstrap.servers",
    effect=NO_EFFECT,
    note="the emulator keeps the history in schema.history.internal.file.filename (or memory)",
)
_audit(
    "schema.history.internal",
    (
        "io.debezium.storage.kafka.history.kafkaschemahistory",
        "io.debezium.storage.file.history.fileschemahistory",
        "io.debezium.relational.history.memoryschemahistory",
    ),
    note="history in schema.history.internal.file.filename when set, else in memory",
)
_audit(
    "offset.storage",
    (
        "org.apache.kafka.connect.storage.fileoffsetbackingstore",
        "org.apache.kafka.connect.storage.memoryoffsetbackingstore",
        "org.apache.kafka.connect.storage.kafkaoffsetbackingstore",
    ),
    note="offsets in offset.storage.file.filename, offset.storage.topic, or memory",
)

# only the value Debezium uses by default (or the values the emulator implements)
# binlog connectors: a row Debezium cannot convert is dropped instead of stopping (emulator/connectors/mysql/
# failed_rows.py; recorded: mariadb cases processing_failure_*); not recorded on the others
_audit(
    "event.processing.failure.handling.mode",
    ("fail", "warn", "skip", "ignore"),
    applies=BINLOG,
    note="`warn`/`skip`/`ignore`: a row whose value cannot be converted is dropped, snapshot and stream "
    "(`ignore` as `skip`: recorded, case processing_failure_ignore_as_skip)",
)
# PostgreSQL: a change or a row of any snapshot (initial, blocking, incremental) that fails on a value is dropped
# (emulator/connectors/postgres/failed_changes.py, emulator/incremental/window_fill.py; recorded: pg cases
# processing_failure_*; with snapshot.max.threads > 1 the readers are not forked: processing_failure_snapshot_threads)
_audit(
    "event.processing.failure.handling.mode",
    ("fail", "warn", "skip"),
    applies=PG,
    note="`warn`/`skip`: a streamed change or a snapshot row (initial, blocking, incremental; with any "
    "snapshot.max.threads) whose value cannot be converted is dropped",
)
_audit(
    "event.processing.failure.handling.mode",
    ("fail",),
    applies=MO,
    note="`warn`/`skip` not recorded on this connector",
)
# TableSchemaBuilder (every relational connector): a value its converter cannot put into the row is a null field
# under `warn`, as under `skip` (the WARN case falls through to SKIP: only the log level differs); `fail` rethrows.
# PostgreSQL: arrays of required elements holding a NULL, numeric[] holding NaN (pg cases converting_fail_*,
# converting_skip); MySQL/MariaDB's own `fail` paths are not recorded
_audit(
    "event.converting.failure.handling.mode",
    ("fail", "warn", "skip"),
    applies=PG,
    note="`fail`: an array of required elements holding a NULL (enum[], tsvector[], unknown types) or a numeric[] "
    "holding NaN stops the capture, where `warn`/`skip` give a null field",
)
# (session 23) `fail` on the binlog connectors: it stops where `warn` leaves a field unset (TableSchemaBuilder: a
# value converter that throws; parseDefaultValue: a default the converter cannot parse) or gives a JSON value null/{}
# (BinlogValueConverters.convertJson: MySQL's binary JSON only, not MariaDB's). The converters that throw on MariaDB
# values are time.precision.mode's (nanoseconds DATETIME past the long range, isostring/connect TIME outside a day):
# recorded, mariadb cases converting_fail_value_stops / converting_fail_default_stops
_audit(
    "event.converting.failure.handling.mode",
    ("fail", "warn", "skip"),
    applies=BINLOG,
    note="`skip` as `warn` (TableSchemaBuilder's WARN case falls through to SKIP); `fail`: a value or DEFAULT "
    "time.precision.mode's converter throws on (nanoseconds DATETIME outside the long range, isostring / "
    "connect TIME outside a day) stops the capture, nullable or not",
)
_audit("event.converting.failure.handling.mode", ("warn",), applies=MO)
# Debezium 3.6.3 reads event.processing.failure.handling.mode for binlog deserialization failures (the
# BinlogStreamingChangeEventSource constructor, checked in the jar); this deprecated property only logs a warning
# (recorded: mariadb case inconsistent_schema_warn sets it to skip, records as without it)
_audit(
    "event.deserialization.failure.handling.mode",
    effect=NO_EFFECT,
    note="deprecated: Debezium 3.6.3 reads `event.processing.failure.handling.mode` instead (a warning only)",
)
# a row event for a captured table whose schema is unknown (emulator/connectors/mysql/stream.py: _resolve) is
# skipped instead of stopping (recorded: mariadb cases inconsistent_schema_skip / _warn); a row whose column count
# differs from a known schema stops Debezium whatever this mode (validateChangeEventWithTable), and the emulator
_audit(
    "inconsistent.schema.handling.mode",
    note="`warn`/`skip`/`ignore`: the rows of a captured table whose schema is unknown are skipped",
)
_audit(
    "schema.name.adjustment.mode",
    ("none",),
    applies=MO,
    note="other values only on PostgreSQL, MySQL, MariaDB",
)
_audit(
    "field.name.adjustment.mode",
    ("none",),
    applies=MO,
    note="other values only on PostgreSQL, MySQL, MariaDB",
)
_audit("source.struct.version", ("v2",))
_audit("sourceinfo.struct.maker", _NOT_SUPPORTED)
# PostgreSQL's DefaultTopicNamingStrategy: catalog (none) and table, no schema (pg case topic_naming_default_strategy)
_audit(
    "topic.naming.strategy",
    ("io.debezium.schema.schematopicnamingstrategy", "io.debezium.schema.defaulttopicnamingstrategy"),
    applies=PG,
    note="`DefaultTopicNamingStrategy`: `<prefix>.<table>` without the schema (PostgreSQL's table ids have no "
    "catalog): tables of the same name in two schemas share a topic, as in Debezium (recorded)",
)
_audit("topic.naming.strategy", ("io.debezium.schema.defaulttopicnamingstrategy",), applies=BINLOG | MO)
# emulator/connectors/guardrail.py (recorded: pg and mariadb cases guardrail_fail_stops)
_audit(
    "guardrail.collections.max",
    applies=PG | BINLOG,
    note="counted at every start as Debezium counts (PostgreSQL: captured tables and partitions; binlog: the tables "
    "whose schemas the history keeps); above it `fail` stops before any record, `warn` logs",
)
_audit("guardrail.collections.max", ("0",), applies=MO)
_audit("guardrail.collections.limit.action", ("warn", "fail"), applies=PG | BINLOG)
_audit("guardrail.collections.limit.action", ("warn",), applies=MO)
# binlog connectors: a column comment is the doc of its field schema (mariadb case schema_comments); Debezium
# 3.6.3's PostgreSQL connector puts none in its records (recorded: pg case schema_comments, also after COMMENT ON)
_audit(
    "include.schema.comments",
    effect=NO_EFFECT,
    note="Debezium 3.6.3 puts no column comment in PostgreSQL records (recorded)",
    applies=PG,
)
_audit("incremental.snapshot.allow.schema.changes", ("false",))
_audit("column.propagate.source.type", _NOT_SUPPORTED, applies=MO)
_audit("datatype.propagate.source.type", _NOT_SUPPORTED, applies=MO)
# recorded (database.include.list naming mysql): Debezium 3.6.3's MySqlConnector stops in the snapshot on the DDL
# of MariaDB's mysql.* tables (Aria options, "extraneous input '1'"); the MariaDbConnector and a MySQL server's
# system tables are not recordable here, and without a system database in the filters the value changes nothing
_audit(
    "table.ignore.builtin",
    ("true",),
    note="`false` not modelled: Debezium's MySqlConnector stops on MariaDB's mysql.* DDL (recorded); other "
    "servers not recordable here",
    applies=BINLOG,
)
_audit("table.ignore.builtin", ("true",), applies=PG)
# PostgreSQL: the BEGIN of a snapshot without the slot's exported snapshot (blocking, or the slot existed):
# emulator/connectors/postgres/snapshot_tables.isolation_begin (recorded: pg cases snapshot_isolation_*)
_audit(
    "snapshot.isolation.mode",
    ("serializable", "repeatable_read", "read_committed", "read_uncommitted"),
    applies=PG,
    note="the isolation of a blocking snapshot, or of an initial one where the slot already existed (a new slot's "
    "snapshot is REPEATABLE READ in its exported snapshot); `read_committed`/`read_uncommitted` refused with "
    "snapshot.max.threads > 1",
)
_audit("snapshot.query.mode", ("select_all",))
_audit("snapshot.query.mode.custom.name", _NOT_SUPPORTED)
_audit("snapshot.mode.custom.name", _NOT_SUPPORTED)
_audit("snapshot.locking.mode.custom.name", _NOT_SUPPORTED)
_audit(
    "snapshot.mode",
    ("always", "initial", "initial_only", "no_data", "when_needed", "configuration_based"),
    applies=PG,
)
_audit(  # configuration_based: the MongoDB connector does not honour start.stream / snapshot.on.data.error
    "snapshot.mode", ("always", "initial", "initial_only", "no_data", "when_needed"), applies=MO
)
# snapshot.delay.ms, streaming.delay.ms: implemented for every connector (emulator/pipeline/coordinator.py)
_audit(
    "snapshot.tables.order.by.row.count",
    applies=PG,
    note="sorted by `SELECT COUNT(1)` on Debezium's chunked path only (snapshot.max.threads or a multiplier above 1); "
    "elsewhere the PostgreSQL connector has no count and the order stays (recorded)",
)
_audit(
    "unavailable.value.placeholder",
    effect=NO_EFFECT,
    note="binlog rows are full images: no value is ever unavailable",
    applies=BINLOG,
)
_audit("skip.messages.without.change", ("false",), applies=MO)
_audit("cursor.oversize.handling.mode", ("fail", "split"))
_audit(
    "snapshot.mode",
    ("always", "initial", "initial_only", "no_data", "when_needed", "recovery", "configuration_based"),
    applies=BINLOG,
)
_audit(
    "snapshot.locking.mode",
    ("none", "shared"),
    applies=PG,
    note="`shared`: LOCK TABLE ... IN ACCESS SHARE MODE in the snapshot's transaction, after SET lock_timeout",
)
_audit(
    "snapshot.locking.mode",
    ("minimal", "minimal_percona", "extended", "none"),
    applies=MY,
)
_audit("snapshot.locking.mode", ("minimal", "minimal_at_least_once", "extended", "none"), applies=MA)
_audit("snapshot.mode.configuration.based.snapshot.on.schema.error", ("false",))
_audit(
    "snapshot.mode.configuration.based.snapshot.schema",
    effect=NO_EFFECT,
    note="PostgreSQL and MongoDB keep no schema history: a schema snapshot emits nothing",
    applies=PG | MO,
)
_audit(
    "time.precision.mode",
    ("adaptive", "adaptive_time_microseconds", "connect", "isostring", "microseconds", "nanoseconds"),
    applies=PG,
)
_audit(
    "time.precision.mode",
    ("adaptive_time_microseconds", "connect", "isostring", "microseconds", "nanoseconds"),
    applies=BINLOG,
)
_audit("lsn.flush.mode", ("connector",), note="flush.lsn.source=false gives Debezium's manual mode")
_audit("offset.mismatch.strategy", ("no_validation",))
_audit("xmin.fetch.interval.ms", ("0",), note="source.xmin is always null")
# columns_diff_exclude_unchanged_toast changes no record with pgoutput (PgOutputReplicationMessage.
# shouldSchemaBeSynchronized is false: schemaChanged is never asked), but PostgresSchema then reads each table's
# toastable columns and commits the connection after it (refreshToastableColumnsMap) - during the snapshot that is
# the snapshot's transaction, after its schema read and before its data: Debezium 3.6 reads the rows READ COMMITTED,
# no longer in the slot's exported snapshot (changes committed meanwhile come twice, in the snapshot and the stream;
# shared locks released). Which changes depends on timing: not recordable, refused
_audit(
    "schema.refresh.mode",
    ("columns_diff",),
    applies=PG,
    note="`columns_diff_exclude_unchanged_toast`: Debezium then commits its snapshot transaction before reading the "
    "rows (outside the slot's snapshot: a timing-dependent result)",
)
_audit("slot.failover", ("false",))
_audit("database.sslfactory", _NOT_SUPPORTED)
# TLS without verifying the server's certificate (emulator/connectors/mysql/tls.py); the verifying modes need a
# Java trust store (database.ssl.truststore): refused
_audit(
    "database.ssl.mode",
    ("disabled", "preferred", "required"),
    applies=MY,
    note="`required`: TLS, certificate not verified; `verify_ca`/`verify_identity` need a Java trust store",
)
_audit(
    "database.ssl.mode",
    ("disable", "trust", "disabled", "preferred"),
    applies=MA,
    note="`trust`: TLS, certificate not verified; `verify-ca`/`verify-full` need a Java trust store",
)
for _name in (
    "database.ssl.keystore",
    "database.ssl.keystore.password",
    "database.ssl.truststore",
    "database.ssl.truststore.password",
    "mongodb.ssl.keystore",
    "mongodb.ssl.keystore.password",
    "mongodb.ssl.truststore",
    "mongodb.ssl.truststore.password",
    "mongodb.ssl.keystore.type",
    "mongodb.ssl.truststore.type",
    "capture.start.op.time",
    "database.connection.factory.class",
    "topic.heartbeat.name",
):
    _audit(_name, _NOT_SUPPORTED)
_audit(
    "post.processors",
    applies=PG | MY,
    note="class `io.debezium.processors.reselect.ReselectColumnsPostProcessor` (options under `<alias>.` or "
    "`post.processors.<alias>.`: `reselect.columns.include.list`, `reselect.columns.exclude.list`, "
    "`reselect.unavailable.values`, `reselect.null.values`, `reselect.use.event.key`, "
    "`reselect.error.handling.mode`); any other class is refused at start",
)
_audit(
    "post.processors",
    _NOT_SUPPORTED,
    applies=MA | MO,
    note="the MariaDbConnector reads rows again through MariaDB's Connector/J (values not recordable here; the "
    "MySqlConnector accepts it on MariaDB servers); MongoDB: the processor looks up a relational connector "
    "configuration the MongoDB connector does not have (read in the source, not recorded)",
)
# the MariaDbConnector reads its snapshot through MariaDB's Connector/J, whose values the converters would see
# differently (TINYINT(1) as Boolean, ...): not recordable here, refused
_audit("converters", _NOT_SUPPORTED, applies=PG | MO)
_audit(
    "converters",
    _NOT_SUPPORTED,
    applies=MA,
    note="its snapshot reads through MariaDB's Connector/J (values not recordable here); the MySqlConnector "
    "accepts them on MariaDB servers",
)
_audit(
    "converters",
    applies=MY,
    note="classes `io.debezium.connector.binlog.converters.TinyIntOneToBooleanConverter` (options `selector`, "
    "`length.checker`) and `io.debezium.connector.binlog.converters.JdbcSinkDataTypesConverter` (options "
    "`selector.boolean` on integer/BOOLEAN columns, `selector.real` on FLOAT/DOUBLE/REAL, `selector.string` on "
    "CHAR/VARCHAR/TEXT, other column types refused; `treat.real.as.double`), each also under its "
    "`io.debezium.connector.mysql.converters` name, and `io.debezium.connector.binlog.converters."
    "ZeroDateFallbackConverter` (options `target.types`, `selector`, `fallback.date`, `fallback.datetime`, "
    "`fallback.timestamp`, `column.<db>.<table>.<column>.fallback`; a literal fallback on a nullable column is "
    "refused: Debezium prints it for NULL too); any other class is refused at start",
)
_audit("enable.time.adjuster", ("true", "false"))
# `false`: no transaction's rows are filtered by their GTID's source (the MySqlConnector does not read a MariaDB
# server's GTIDs at all: mariadb case inconsistent_schema_skip sets it, records as without it)
_audit(
    "gtid.source.filter.dml.events",
    note="`true`, `false`; with `true` and `gtid.source.includes`/`excludes`, the rows of a transaction whose GTID source (MariaDB "
    "`domain-server`, MySQL server UUID) is filtered out are not emitted",
)
_audit(
    "custom.sanitize.pattern",
    effect=NO_EFFECT,
    note="the configuration keys it matches are masked in what the emulator logs (on top of its own secrets: Debezium "
    "masks only those); no record shows the configuration",
)
# (session 22) read in Debezium 3.6.1's source: with it, a restart positions by binlog file/position instead of the
# stored GTID set (BinlogStreamingChangeEventSource.shouldRecoverUsingGtid, validateLogPosition). The MySqlConnector
# on MariaDB sees no GTID mode (no gtid_mode variable) and is positioned by file/position anyway; the MariaDbConnector's
# restart with it could not be recorded (no MariaDbConnector jars here)
_audit("gtid.ignore.on.recovery", _NOT_SUPPORTED)
_audit("ddl.parser.type", ("antlr",), note="the emulator's own DDL parser, Debezium's antlr semantics")
_audit("internal.mongodb.allow.offset.invalidation", ("false",))
_audit(
    "mongodb.authentication.class", ("io.debezium.connector.mongodb.connection.defaultmongodbauthprovider",)
)
_audit("cursor.oversize.skip.threshold", ("0",))
_audit("signal.kafka.consumer.offset.commit.enabled", ("false",))
_audit("kafka.consumer.offset.commit.enabled", ("false",))
_audit("key.converter", tuple(c.lower() for c in DATA_CONVERTERS))
_audit("value.converter", tuple(c.lower() for c in DATA_CONVERTERS))
_audit("header.converter", tuple(c.lower() for c in HEADER_CONVERTERS))


def _by_kinds() -> dict[str, list[tuple[frozenset[str], tuple]]]:
    """``{property name: [(kind set, entry), ...]}`` of the per-kind audit entries, in audit order: built once
    per split, so a row looks its entries up instead of scanning the whole audit (254 rows x 125 entries)."""
    out: dict[str, list[tuple[frozenset[str], tuple]]] = {}
    for key, entry in _AUDIT.items():
        name, at, _kinds = key.partition("@")
        if at and entry[0] is not None:
            out.setdefault(name, []).append((entry[0], entry))
    return out


def _with_audit(spec: PropertySpec, by_kinds: dict[str, list[tuple[frozenset[str], tuple]]]) -> PropertySpec:
    import dataclasses

    for key in (f"{spec.name}@{','.join(sorted(spec.applies))}", spec.name):
        entry = _AUDIT.get(key)
        if entry is None:
            # an entry for a subset of kinds that covers this row
            for kinds, v in by_kinds.get(spec.name, ()):
                if spec.applies <= kinds:
                    entry = v
                    break
        if entry is not None:
            _applies, supported, effect, note = entry
            return dataclasses.replace(spec, supported=supported, effect=effect, note=note)
    return spec


def split_by_audit(specs: tuple[PropertySpec, ...]) -> tuple[PropertySpec, ...]:
    """Rows shared by several kinds whose audit differs per kind are split, one row per audited kind set."""
    out: list[PropertySpec] = []
    import dataclasses

    by_kinds = _by_kinds()
    for spec in specs:
        parts = [kinds for kinds, _entry in by_kinds.get(spec.name, ())]
        pieces = [spec.applies & a for a in parts if spec.applies & a]
        rest = spec.applies - frozenset().union(*pieces) if pieces else spec.applies
        if len(pieces) > 1 or (pieces and rest):
            for a in pieces + ([rest] if rest else []):
                out.append(_with_audit(dataclasses.replace(spec, applies=a), by_kinds))
        else:
            out.append(_with_audit(spec, by_kinds))
    return tuple(out)


def status_of(spec: PropertySpec) -> str:
    """IMPLEMENTED, NO_EFFECT or REFUSED, for the generated property table."""
    if spec.supported == ():
        return REFUSED
    return spec.effect
