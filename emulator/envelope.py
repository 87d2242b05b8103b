"""Debezium envelopes: per-table key/value schemas, precomputed once, and the records built from rows.

Shared by every relational connector. A connector supplies its source-block schema and, per event, the
source block payload (a dict in schema field order); everything else here is Debezium's common shape.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

import orjson

from emulator.connect.json import Framed, JsonCodec
from emulator.connect.schema import (
    OPT_INT64,
    REQ_STRING,
    Schema,
    struct,
)
from emulator.envelope_format import OP_JSON, line_format, payload_format, value_format
from emulator.envelope_rows import key_builder, row_builder, with_defaults
from emulator.model import TableDef
from emulator.naming import field_name_adjuster, schema_name_adjuster
from emulator.records import Record, StructuredRecord, headers_json

_dumps = orjson.dumps
_join = b"".join
_time_ns = time.time_ns

TX_BLOCK = struct(
    "event.block",
    [
        ("id", REQ_STRING),
        ("total_order", Schema("int64")),
        ("data_collection_order", Schema("int64")),
    ],
    optional=True,
    version=1,
)

HEADER_STRING = Schema("string")

# `change`'s payload for a source block given as JSON: every part a slot (emulator.envelope_format)
_ANY_PAYLOAD = payload_format()
_SNAPSHOT_PAYLOAD = payload_format(before=b"null", transaction=b"null", op="r")


def now_ns() -> int:
    return time.time_ns()


def uuid7() -> str:
    """A UUIDv7 (time-ordered), as Debezium uses for `__debezium.context.runId`."""
    ms = time.time_ns() // 1_000_000
    rand = uuid.uuid4().int
    value = (ms & ((1 << 48) - 1)) << 80 | (0x7 << 76) | (rand & ((1 << 12) - 1)) << 64
    value |= (0b10 << 62) | (rand >> 12) & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


log = logging.getLogger("emulator.envelope")


def _same(name: str) -> str:
    return name


_TOPIC_OK = frozenset("._-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
MAX_TOPIC_LENGTH = 249


def sanitized_topic(name: str) -> str:
    """Debezium's AbstractTopicNamingStrategy.sanitizedTopicName: every UTF-16 unit that is not
    [A-Za-z0-9._-] becomes `_` (a character outside the BMP: two), cut to 249; "." and ".." replaced."""
    if all(c in _TOPIC_OK for c in name) and len(name) <= MAX_TOPIC_LENGTH and name not in (".", ".."):
        return name
    out = "".join(c if c in _TOPIC_OK else ("__" if ord(c) > 0xFFFF else "_") for c in name)
    if len(out) > MAX_TOPIC_LENGTH:
        out = out[:MAX_TOPIC_LENGTH]
    elif out in (".", ".."):
        out = "_" * len(out)
    log.warning("Topic '%s' name isn't a valid topic name, replacing it with '%s'.", name, out)
    return out


class EnvelopeSettings:
    """What every envelope of one connector shares: names, converters, headers, source schema."""

    def __init__(
        self,
        *,
        prefix: str,
        connector_name: str,
        source_schema: Schema,
        key_schemas: bool = True,
        value_schemas: bool = True,
        header_schemas: bool = True,
        task_id: str = "0",
        delimiter: str = ".",
        replace_null_with_default: bool = True,
        key_replace_null_with_default: bool = True,
        schema_name_adjuster: Callable[[str], str] | None = None,
        field_name_adjuster: Callable[[str], str] | None = None,
        structured: bool = False,
        schema_in_topic: bool = True,
    ) -> None:
        self.prefix = prefix
        # a table's topic names its schema (or database): PostgreSQL's SchemaTopicNamingStrategy and the binlog
        # connectors' DefaultTopicNamingStrategy (the database is their catalog); PostgreSQL's TableIds have no
        # catalog, so its DefaultTopicNamingStrategy names the table only (recorded: pg case
        # topic_naming_default_strategy: public.a and other.a share `<prefix>.a`)
        self.schema_in_topic = schema_in_topic
        # Kafka Connect's data plane runs (transforms / converters): table records go to it as their
        # schemas and payloads (StructuredRecord), not as JSON text it would parse back
        self.structured = structured
        # schema.name.adjustment.mode / field.name.adjustment.mode (emulator.naming); None: names as they are
        self.schema_name_adjuster = schema_name_adjuster
        self.field_name_adjuster = field_name_adjuster
        # JsonConverter's replace.null.with.default (Connect's Struct.get): a NULL in a field whose schema
        # has a default is printed as the default
        self.replace_null_with_default = replace_null_with_default
        # the key converter's own (a key field is NULL only for a nullable unique-index or
        # message.key.columns column; its default comes from the column like the value's)
        self.key_replace_null_with_default = key_replace_null_with_default
        self.connector_name = connector_name
        self.source_schema = source_schema
        self.key_codec = JsonCodec(key_schemas)
        self.value_codec = JsonCodec(value_schemas)
        self.header_codec = JsonCodec(header_schemas)
        self.delimiter = delimiter
        self.run_id = uuid7()
        self.context_headers: list[tuple[str, bytes]] = [
            (f"__debezium.context.{n}", self.header_codec.encode(HEADER_STRING, v))
            for n, v in (
                ("connectorLogicalName", prefix),
                ("taskId", task_id),
                ("connectorName", connector_name),
                ("runId", self.run_id),
            )
        ]

    @classmethod
    def of(
        cls,
        s: Any,
        *,
        connector_name: str,
        source_schema: Schema,
        structured: bool = False,
        schema_in_topic: bool = True,
    ) -> EnvelopeSettings:
        """From a connector's typed settings (emulator.settings): what every adapter shares, read in one place."""
        c = s.converters
        return cls(
            prefix=s.topics.prefix,
            connector_name=connector_name,
            source_schema=source_schema,
            key_schemas=c.key_schemas_enable,
            value_schemas=c.value_schemas_enable,
            header_schemas=c.header_schemas_enable,
            delimiter=s.topics.delimiter,
            replace_null_with_default=c.value_replace_null_with_default,
            key_replace_null_with_default=c.key_replace_null_with_default,
            structured=structured,
            schema_in_topic=schema_in_topic,
            schema_name_adjuster=schema_name_adjuster(s.common.schema_name_adjustment_mode),
            field_name_adjuster=field_name_adjuster(s.common.field_name_adjustment_mode),
        )

    def topic(self, *parts: str) -> str:
        return sanitized_topic(self.delimiter.join((self.prefix, *parts)))

    def table_topic(self, namespace: str, name: str) -> str:
        return self.topic(namespace, name) if self.schema_in_topic else self.topic(name)


class TableEnvelope:
    """Everything per table that does not change from row to row, and the record builders.

    With `settings.structured` the instance is a `StructuredTableEnvelope`: the same records, handed over in
    their parts (nothing is serialized for the data plane to parse back)."""

    __slots__ = (
        "table",
        "settings",
        "topic",
        "names",
        "converters",
        "snapshot_converters",
        "key_idx",
        "key_names",
        "key_schema",
        "value_schema",
        "envelope_schema",
        "key_frame",
        "value_frame",
        "unavailable",
        "_key_header_frame",
        "key_only",
        "null_fill",
        "null_defaults",
        "key_defaults",
        "header_key_defaults",
        "_row",
        "_snapshot_row",
        "_key",
        "_value_format",
        "_after_formats",
        "_old_formats",
    )

    def __new__(cls, settings: EnvelopeSettings, table: TableDef, topic: str | None = None):
        if cls is TableEnvelope and settings.structured:
            cls = StructuredTableEnvelope
        return object.__new__(cls)

    def __init__(self, settings: EnvelopeSettings, table: TableDef, topic: str | None = None) -> None:
        self.table = table
        self.settings = settings
        self.topic = topic or settings.table_topic(table.namespace, table.name)
        cols = table.columns
        fa = settings.field_name_adjuster or _same
        sa = settings.schema_name_adjuster or _same
        # field names as printed (field.name.adjustment.mode); rows are dicts keyed by them
        self.names = [fa(c.name) for c in cols]
        self.converters = [c.convert for c in cols]
        self.snapshot_converters = [c.snapshot_convert or c.convert for c in cols]
        self.unavailable = [c.unavailable for c in cols]
        by_name = {fa(c.name): c for c in cols}
        self.key_names = [fa(k) for k in table.key_columns]
        self.key_idx = [self.names.index(k) for k in self.key_names]
        self.key_schema = (
            struct(
                sa(f"{self.topic}.Key"),
                [(k, by_name[k].key_schema or by_name[k].schema) for k in self.key_names],
            )
            if self.key_names
            else None
        )
        self.key_only = frozenset(fa(k) for k in table.key_only) if table.key_only else table.key_only
        # columns whose NULL is printed as a value (column.mask.with.N.chars masks NULL too)
        self.null_fill = [(fa(c.name), c.null_value) for c in cols if c.null_value is not None]
        self.null_defaults = (
            [
                (n, c.schema.default)
                for n, c in zip(self.names, cols)
                if c.schema.default is not None and n not in self.key_only
            ]
            if settings.replace_null_with_default
            else []
        )
        # key fields whose NULL JsonConverter prints as the default (replace.null.with.default, as for the
        # value; Debezium's key schema carries the column's default). The rows and keys themselves keep the
        # NULL: Debezium compares key Structs by their values (a key change from NULL to the default is one)
        key_field_defaults = (
            [
                (k, s.default)
                for k, s in ((f.name, f.schema) for f in self.key_schema.fields)
                if s.default is not None
            ]
            if self.key_schema is not None
            else []
        )
        self.key_defaults = key_field_defaults if settings.key_replace_null_with_default else []
        # __debezium.oldkey/newkey: the header converter's JsonConverter (replace.null.with.default true) or
        # SimpleHeaderConverter (Values.append reads fields with Struct.get) print the default alike
        # (not for the data plane: its header converter prints them, transforms see the NULL as in the Struct)
        self.header_key_defaults = key_field_defaults if not settings.structured else []
        self.value_schema = struct(
            sa(f"{self.topic}.Value"),
            [(n, c.schema) for n, c in zip(self.names, cols) if n not in self.key_only],
            optional=True,
        )
        self.envelope_schema = struct(
            sa(f"{self.topic}.Envelope"),
            [
                ("before", self.value_schema),
                ("after", self.value_schema),
                ("source", settings.source_schema),
                ("transaction", TX_BLOCK),
                ("op", REQ_STRING),
                ("ts_ms", OPT_INT64),
                ("ts_us", OPT_INT64),
                ("ts_ns", OPT_INT64),
            ],
            version=2,
        )
        self.key_frame = Framed(settings.key_codec, self.key_schema) if self.key_schema else None
        self.value_frame = Framed(settings.value_codec, self.envelope_schema)
        self._key_header_frame = Framed(settings.header_codec, self.key_schema) if self.key_schema else None
        self._row = row_builder(self.names, self.converters)
        self._snapshot_row = row_builder(self.names, self.snapshot_converters)
        self._key = key_builder(self.key_names) if self.key_names else None
        # the whole value as one bytes format, for a source block that comes serialized (`change`)
        self._value_format = value_format(self.value_frame, _ANY_PAYLOAD)
        # ... and for `change_json` the whole directory line: key, value with no `before` and the op in place,
        # the context headers (`LineRecord`'s cuts with them)
        hs = settings.context_headers
        tail = headers_json(hs) if hs else None
        self._after_formats = {
            op: line_format(self.key_frame, self.value_frame, payload_format(before=b"null", op=op), tail)
            for op in ("c", "u")
        }
        # ... and for `change_json_old` (an UPDATE or DELETE with its old row as JSON): `before` a slot too
        self._old_formats = {
            op: line_format(self.key_frame, self.value_frame, payload_format(op=op), tail)
            for op in ("u", "d")
        }

    # -- rows ----------------------------------------------------------------------------------------
    def row(self, raw: list) -> dict[str, Any]:
        """Raw values in column order -> the JSON-ready `before`/`after` struct."""
        row = self._row(raw)
        return self.fill_nulls(row) if self.null_fill else row

    def fill_nulls(self, row: dict[str, Any]) -> dict[str, Any]:
        """Masked columns print the mask whatever the value, NULL and old-key fillers included."""
        for name, value in self.null_fill:
            row[name] = value
        return row

    def snapshot_row(self, raw: list) -> dict[str, Any]:
        """Like `row`, for values read by a snapshot query rather than from the log."""
        row = self._snapshot_row(raw)
        return self.fill_nulls(row) if self.null_fill else row

    def key_of(self, row: dict[str, Any]) -> dict[str, Any] | None:
        """The key as printed (the snapshots': they only print it). The dispatcher compares keys, so it
        takes `_key`'s, and `change` prints them. The data plane gets the NULL, as Debezium's Struct holds it."""
        key = self._key
        if key is None:
            return None
        if self.key_defaults and not self.settings.structured:
            return with_defaults(key(row), self.key_defaults)
        return key(row)

    def key_bytes(self, key: dict[str, Any] | None) -> bytes | None:
        if key is None:
            return None
        if self.key_defaults:
            key = with_defaults(key, self.key_defaults)
        return self.key_frame.encode(key)

    # -- records -------------------------------------------------------------------------------------
    def change(
        self,
        op: str,
        before: dict | None,
        after: dict | None,
        source: dict,
        transaction: dict | None,
        key: dict | None,
        extra_headers: list[tuple[str, bytes]] | None = None,
    ) -> Record:
        if self.key_only:  # rows carry excluded key columns only so the key can be taken from them
            before = self.value_part(before)
            after = self.value_part(after)
        if self.null_defaults:
            before = self._null_defaults(before)
            after = self._null_defaults(after)
        if self.key_defaults and key is not None:
            key = with_defaults(key, self.key_defaults)
        ns = _time_ns()
        headers = self.settings.context_headers
        if extra_headers:
            headers = extra_headers + headers
        if source.__class__ is bytes:  # the block as JSON already (the pgoutput stream's template)
            value = self._value_format % (
                b"null" if before is None else _dumps(before),
                b"null" if after is None else _dumps(after),
                source,
                b"null" if transaction is None else _dumps(transaction),
                OP_JSON[op],
                ns // 1_000_000,
                ns // 1_000,
                ns,
            )
            if key is None:
                return Record(self.topic, None, value, headers)
            kf = self.key_frame
            return Record(self.topic, _join((kf.head, _dumps(key), kf.tail)), value, headers)
        payload = {
            "before": before,
            "after": after,
            "source": source,
            "transaction": transaction,
            "op": op,
            "ts_ms": ns // 1_000_000,
            "ts_us": ns // 1_000,
            "ts_ns": ns,
        }
        # Framed.encode inlined: two calls fewer per event; one join copies the ~4 KB schema head once
        vf = self.value_frame
        value = _join((vf.head, _dumps(payload), vf.tail))
        if key is None:
            return Record(self.topic, None, value, headers)
        kf = self.key_frame
        return Record(self.topic, _join((kf.head, _dumps(key), kf.tail)), value, headers)

    def json_fields(self) -> tuple[list[tuple[str, int, bytes, bytes | None]], list | None]:
        """The fields of `after` and of the key as `change` prints them, for a row given as JSON text
        (`change_json`): per field (name, index into `names`, its JSON when NULL, its constant JSON or
        None). A NULL shows the column's default (replace.null.with.default of the value's and of the key's
        converter); a masked column shows the mask in both; key-only columns are left out of `after`."""
        fill = {name: _dumps(v) for name, v in self.null_fill}
        defaults = {name: _dumps(v) for name, v in self.null_defaults}
        key_defaults = {name: _dumps(v) for name, v in self.key_defaults}
        value = [
            (name, j, defaults.get(name, b"null"), fill.get(name))
            for j, name in enumerate(self.names)
            if not self.key_only or name not in self.key_only
        ]
        if not self.key_names:
            return value, None
        return value, [
            (k, j, key_defaults.get(k, b"null"), fill.get(k)) for k, j in zip(self.key_names, self.key_idx)
        ]

    def change_json(
        self, op: str, after: bytes, source: bytes, transaction: dict | None, key: bytes | None
    ) -> Record:
        """`change(op, None, row, source, transaction, key)` (op "c" or "u") for `after` and `key` given as
        the JSON `orjson.dumps` prints for them (`json_fields`) and `source` as JSON: one format makes the
        record's directory line, key and value are cut out of it when asked (`LineRecord`)."""
        ns = _time_ns()
        fmt, vstart, vtail = self._after_formats[op]
        tx = b"null" if transaction is None else _dumps(transaction)
        if key is None:
            line = fmt % (after, source, tx, ns // 1_000_000, ns // 1_000, ns)
            return LineRecord(self.topic, line, 0, vstart, vtail, self.settings.context_headers)
        line = fmt % (key, after, source, tx, ns // 1_000_000, ns // 1_000, ns)
        return LineRecord(self.topic, line, len(key), vstart + len(key), vtail, self.settings.context_headers)

    def change_json_old(
        self, op: str, before: bytes, after: bytes, source: bytes, transaction: dict | None, key: bytes | None
    ) -> Record:
        """`change(op, before_row, after_row, source, transaction, key)` (op "u" or "d": `after` b"null") for
        rows and key as `change_json` takes them: the UPDATE with its old row, the DELETE."""
        ns = _time_ns()
        fmt, vstart, vtail = self._old_formats[op]
        tx = b"null" if transaction is None else _dumps(transaction)
        if key is None:
            line = fmt % (before, after, source, tx, ns // 1_000_000, ns // 1_000, ns)
            return LineRecord(self.topic, line, 0, vstart, vtail, self.settings.context_headers)
        line = fmt % (key, before, after, source, tx, ns // 1_000_000, ns // 1_000, ns)
        return LineRecord(self.topic, line, len(key), vstart + len(key), vtail, self.settings.context_headers)

    def tombstone_json(self, key: bytes | None) -> Record:
        """`tombstone(key_row)` for the key as JSON text (`change_json`'s)."""
        if key is None:
            return Record(self.topic, None, None, self.settings.context_headers)
        kf = self.key_frame
        return Record(self.topic, _join((kf.head, key, kf.tail)), None, self.settings.context_headers)

    def snapshot_payloads(self, after: dict, source: dict, key: dict | None) -> tuple[bytes | None, bytes]:
        """A snapshot read's key and value payloads as `change("r", None, after, source, None, key)` frames
        them (without the frames: forked snapshot readers send these to the process that writes)."""
        if self.key_only:
            after = self.value_part(after)
        if self.null_defaults:
            after = self._null_defaults(after)
        if self.key_defaults and key is not None:
            key = with_defaults(key, self.key_defaults)
        ns = _time_ns()
        payload = _SNAPSHOT_PAYLOAD % (_dumps(after), _dumps(source), ns // 1_000_000, ns // 1_000, ns)
        return (_dumps(key) if key is not None else None), payload

    def _null_defaults(self, row: dict | None) -> dict | None:
        """NULLs of columns with a default as JsonConverter prints them (a copy: rows are kept for
        TOAST and key-change bookkeeping with their real values)."""
        if row is None:
            return None
        return with_defaults(row, self.null_defaults)

    def value_part(self, row: dict | None) -> dict | None:
        """The row as before/after show it (without key-only columns)."""
        if row is None or not self.key_only:
            return row
        return {k: v for k, v in row.items() if k not in self.key_only}

    def tombstone(self, key: dict | None, extra_headers: list[tuple[str, bytes]] | None = None) -> Record:
        headers = self.settings.context_headers
        if extra_headers:
            headers = extra_headers + headers
        return Record(self.topic, self.key_bytes(key), None, headers)

    def key_header(self, name: str, key: dict) -> tuple[str, bytes]:
        """`__debezium.oldkey` / `__debezium.newkey`: the other key, as the header converter prints it."""
        if self.header_key_defaults:
            key = with_defaults(key, self.header_key_defaults)
        return (name, self._key_header_frame.encode(key))


class LineRecord(Record):
    """A `Record` made as its directory line (`TableEnvelope.change_json`): `{"key":K,"value":V,"headers":...}`
    in one format, with no bytes of its own for the key and the value until something reads them (the Kafka
    output; the directory output writes the line as it is). Never binary, no partition."""

    __slots__ = ("_line", "_klen", "_vstart", "_vtail")

    # class attributes in front of Record's slots: two stores fewer per record (nothing sets them later: a
    # transform choosing a partition works on the data plane's records)
    partition = None
    binary = False

    def __init__(self, topic: str, line: bytes, klen: int, vstart: int, vtail: int, headers) -> None:
        self.topic = topic
        self._line = line
        self._klen = klen  # the key's payload length; 0: no key (the line shows null)
        self._vstart = vstart
        self._vtail = vtail
        self.headers = headers

    @property
    def key(self) -> bytes | None:  # type: ignore[override]
        return self._line[7 : self._vstart - 9] if self._klen else None

    @property
    def value(self) -> bytes:  # type: ignore[override]
        return self._line[self._vstart : len(self._line) - self._vtail]

    def line(self) -> bytes:
        return self._line


class StructuredTableEnvelope(TableEnvelope):
    """`TableEnvelope` when the data plane runs: `change` / `tombstone` return `StructuredRecord`s carrying
    the precomputed schemas and the payload dicts (the frames only serialize them if something asks)."""

    __slots__ = ()

    def change(
        self,
        op: str,
        before: dict | None,
        after: dict | None,
        source: dict,
        transaction: dict | None,
        key: dict | None,
        extra_headers: list[tuple[str, bytes]] | None = None,
    ) -> Record:
        if self.key_only:
            before = self.value_part(before)
            after = self.value_part(after)
        if self.null_defaults:
            before = self._null_defaults(before)
            after = self._null_defaults(after)
        ns = _time_ns()
        payload = {
            "before": before,
            "after": after,
            "source": source,
            "transaction": transaction,
            "op": op,
            "ts_ms": ns // 1_000_000,
            "ts_us": ns // 1_000,
            "ts_ns": ns,
        }
        headers = self.settings.context_headers
        if extra_headers:
            headers = extra_headers + headers
        return StructuredRecord(
            self.topic,
            self.key_schema if key is not None else None,
            key,
            self.envelope_schema,
            payload,
            headers,
            (self.key_frame, self.value_frame),
        )

    def tombstone(self, key: dict | None, extra_headers: list[tuple[str, bytes]] | None = None) -> Record:
        headers = self.settings.context_headers
        if extra_headers:
            headers = extra_headers + headers
        return StructuredRecord(
            self.topic,
            self.key_schema if key is not None else None,
            key,
            None,
            None,
            headers,
            (self.key_frame, self.value_frame),
        )
