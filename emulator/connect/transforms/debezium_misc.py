"""Debezium's smaller transforms: HeaderToValue, SchemaChangeEventFilter, TimezoneConverter, and the MySQL
connector's ReadToInsertEvent."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from typing import Any

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import (
    Options,
    Transform,
    TransformError,
    copy_basics,
    fget,
    field_of,
    is_envelope,
    register,
    require_struct,
)

D = "io.debezium.transforms."
SCHEMA_CHANGE_TYPES = ("CREATE", "ALTER", "DROP", "TRUNCATE", "DATABASE")


def _required_list(opts: Options, key: str) -> list[str]:
    if opts.raw(key) is None or not opts.raw(key).strip():
        raise opts.fail(key, "a value is required")
    items = opts.list(key)
    if any(not i for i in items):
        raise opts.fail(key, "must not contain empty elements")
    if any(" " in i for i in items):
        raise opts.fail(key, "must not contain spaces in any element")
    return items


@register(D + "HeaderToValue")
class HeaderToValue(Transform):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.fields = _required_list(opts, "fields")
        self.headers = _required_list(opts, "headers")
        op = opts.str("operation")
        if op is None:
            raise opts.fail("operation", "a value is required")
        op = op.strip().lower()
        if op not in ("move", "copy"):
            raise opts.fail(
                "operation", f"invalid value {opts.raw('operation')!r}; allowed values: move, copy"
            )
        if len(self.headers) != len(self.fields):
            raise opts.fail(
                "fields", "'fields' config must have the same number of elements as 'headers' config."
            )
        if any("." in f for f in self.fields):
            raise opts.fail("fields", "nested fields (dot notation) are not supported by this emulator")
        self.move = op == "move"
        # copy: newRecord(..., record.headers()), the same object (emulator.connect.shared_headers); move: a
        # new headers object without the moved ones
        self.in_place_headers = None if self.move else "a new record, the same headers object"
        self.cache: dict[int, tuple[Schema, Schema]] = {}

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        if r.value is None:
            return r
        value = require_struct(r.value, "Header field insertion", r.value_schema)
        schema = r.value_schema
        entries = []
        for name, hschema, hvalue in r.headers:
            if name in self.headers:
                entries.append((self.fields[self.headers.index(name)], hschema, hvalue))
        if not entries:
            return r
        hit = self.cache.get(id(schema))
        if hit is None or hit[0] is not schema:  # Debezium caches by the value schema alone
            fields = list(schema.fields)
            names = {f.name for f in fields}
            for fname, hschema, _ in entries:
                if fname not in names:
                    names.add(fname)
                    fields.append(Field(fname, hschema))
            hit = (schema, copy_basics(schema, fields=fields))
            self.cache[id(schema)] = hit
        updated = hit[1]
        out = {f.name: None for f in updated.fields}
        for f in schema.fields:
            v = fget(f, value)
            if v is not None:
                out[f.name] = v
        for fname, _, hvalue in entries:
            if fname not in out:
                raise TransformError(f"{fname} is not a valid field name")
            out[fname] = hvalue
        headers = [h for h in r.headers if h[0] not in self.headers] if self.move else r.headers
        return ConnectRecord(r.topic, r.partition, r.key_schema, r.key, updated, out, headers, r.timestamp)


@register(D + "SchemaChangeEventFilter")
class SchemaChangeEventFilter(Transform):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        raw = opts.str("schema.change.event.exclude.list")
        if raw is None or not raw.strip():
            raise opts.fail("schema.change.event.exclude.list", "a value is required")
        self.exclude = set()
        for t in raw.split(","):
            t = t.strip()
            if t not in SCHEMA_CHANGE_TYPES:
                raise opts.fail(
                    "schema.change.event.exclude.list",
                    f"No enum constant io.debezium.schema.SchemaChangeEvent.SchemaChangeEventType.{t}",
                )
            self.exclude.add(t)

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        s = r.value_schema
        if (
            r.value is None
            or s is None
            or s.name is None
            or not s.name.endswith((".SchemaChangeValue", ".SchemaChangeKey"))
        ):
            return r
        changes = require_struct(r.value, "Read schema change event to filter").get("tableChanges")
        if changes is None:
            return None
        kind = "DATABASE" if not changes else changes[0].get("type")
        return None if kind in self.exclude else r


# ------------------------------------------------------------------------------------ TimezoneConverter

_OFFSET = re.compile(r"^[+-]\d{2}:\d{2}(:\d{2})?$")
# Debezium validates the list's toString() with this: only the first rule may carry a source:/topic: prefix
_LIST_PATTERN = re.compile(r'^\[(source|topic|[".\w\s_]+):([".\w\s_]+(?::[".\w\s_]+)?(?:,|]$))+$', re.ASCII)
_EPOCH = dt.datetime(1970, 1, 1)
_SUPPORTED = (
    "io.debezium.time.MicroTimestamp",
    "io.debezium.time.NanoTimestamp",
    "io.debezium.time.Timestamp",
    "io.debezium.time.ZonedTimestamp",
    "io.debezium.time.ZonedTime",
    "org.apache.kafka.connect.data.Timestamp",
)
_EPOCH_FIELDS = {"ts_ms": 1000, "ts_us": 1_000_000, "ts_ns": 1_000_000_000}


def _iso_offset(seconds: int) -> str:
    if seconds == 0:
        return "Z"
    sign = "+" if seconds > 0 else "-"
    s = abs(seconds)
    text = f"{sign}{s // 3600:02d}:{s % 3600 // 60:02d}"
    return text + (f":{s % 60:02d}" if s % 60 else "")


def _iso_time(h: int, m: int, s: int, nanos: int) -> str:
    text = f"{h:02d}:{m:02d}:{s:02d}"
    if nanos:
        text += "." + f"{nanos:09d}".rstrip("0")
    return text


def _parse_iso_offset_datetime(text: str) -> tuple[dt.datetime, int, int]:
    """ISO_OFFSET_DATE_TIME -> (naive UTC datetime without the fraction, nanos, offset seconds)."""
    m = re.fullmatch(
        r"(\d{4,}-\d\d-\d\dT\d\d:\d\d(?::\d\d)?)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d(?::\d\d)?)", text
    )
    if m is None:
        raise TransformError(f"Text '{text}' could not be parsed at index 0")
    local = dt.datetime.fromisoformat(m.group(1))
    nanos = int((m.group(2) or "").ljust(9, "0") or 0)
    off = 0 if m.group(3) == "Z" else _offset_seconds(m.group(3))
    return local - dt.timedelta(seconds=off), nanos, off


def _offset_seconds(text: str) -> int:
    sign = -1 if text[0] == "-" else 1
    parts = [int(p) for p in text[1:].split(":")]
    return sign * (parts[0] * 3600 + parts[1] * 60 + (parts[2] if len(parts) > 2 else 0))


@register(D + "TimezoneConverter")
class TimezoneConverter(Transform):
    in_place_headers = "a new record, the same headers object"  # emulator.connect.shared_headers

    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        tz = opts.str("converted.timezone")
        if tz is None or not tz.strip():
            raise opts.fail("converted.timezone", "a value is required")
        if _OFFSET.match(tz):
            self.zone = dt.timezone(dt.timedelta(seconds=_offset_seconds(tz)))
        else:
            try:
                self.zone = zoneinfo.ZoneInfo(tz)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise opts.fail(
                    "converted.timezone",
                    "Invalid timezone format. Please specify either a geographic "
                    "timezone (e.g. America/Los_Angeles) or a UTC offset in the format of +/-hh:mm, "
                    "(e.g. +08:00).",
                ) from None
        self.include = opts.list("include.list")
        self.exclude = opts.list("exclude.list")
        if self.include and self.exclude:
            raise opts.fail(
                "exclude.list", "Both include and exclude lists are specified. Please specify only one."
            )
        self.topic_fields: dict[str, set[str]] = {}
        self.table_fields: dict[str, set[str]] = {}
        self.plain_fields: dict[str, set[str]] = {}
        common = None
        rules = self.include or self.exclude
        which = "include" if self.include else "exclude"
        if rules and not _LIST_PATTERN.match("[" + ", ".join(rules) + "]"):  # Java's List.toString()
            raise opts.fail(
                f"{which}.list",
                f"Invalid {which} list format. Please specify a list of rules in the "
                'format of "source:<tablename>:<fieldnames>", "topic:<topicname>:<fieldnames>", '
                '"<matchname>:<fieldnames>"',
            )
        for item in rules:
            parts = item.split(":")
            if not 1 <= len(parts) <= 3 or any(not p for p in parts):
                raise opts.fail(
                    f"{which}.list",
                    f"Invalid {which} list format. Please specify a list of rules in the "
                    'format of "source:<tablename>:<fieldnames>", "topic:<topicname>:<fieldnames>", '
                    '"<matchname>:<fieldnames>"',
                )
            prefix = field = None
            if len(parts) == 1:
                name = parts[0]
            elif parts[0].lower() in ("source", "topic"):
                prefix, name = parts[0], parts[1]
                field = parts[2] if len(parts) == 3 else None
            else:
                name, field = parts[0], parts[1]
            if prefix is not None:
                common = prefix
            target = (
                self.topic_fields
                if common == "topic"
                else self.table_fields
                if common == "source"
                else self.plain_fields
            )
            target.setdefault(name, set())
            if field is not None:
                target[name].add(field)

    # -- conversions (Debezium's getTimestampWithTimezone)
    def _offset_for_local(self, local: dt.datetime) -> int:
        return int(local.replace(tzinfo=self.zone, fold=0).utcoffset().total_seconds())

    def _offset_at(self, instant_s: float) -> int:
        return int(dt.datetime.fromtimestamp(instant_s, self.zone).utcoffset().total_seconds())

    def _convert(self, name: str, v: Any) -> Any:
        if name == "io.debezium.time.ZonedTimestamp":
            utc, nanos, off = _parse_iso_offset_datetime(v)
            target = self._offset_for_local(utc + dt.timedelta(seconds=off))
            local = utc + dt.timedelta(seconds=target)
            return (
                local.strftime("%Y-%m-%dT")
                + _iso_time(local.hour, local.minute, local.second, nanos)
                + _iso_offset(target)
            )
        if name == "io.debezium.time.ZonedTime":
            m = re.fullmatch(r"(\d\d):(\d\d)(?::(\d\d))?(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d(?::\d\d)?)", v)
            if m is None:
                raise TransformError(f"Text '{v}' could not be parsed at index 0")
            off = 0 if m.group(5) == "Z" else _offset_seconds(m.group(5))
            target = self._offset_at(dt.datetime.now(dt.UTC).timestamp())  # Debezium: the offset of now
            secs = (
                int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3) or 0) - off + target
            ) % 86400
            nanos = int((m.group(4) or "").ljust(9, "0") or 0)
            return _iso_time(secs // 3600, secs % 3600 // 60, secs % 60, nanos) + _iso_offset(target)
        unit = {
            "io.debezium.time.MicroTimestamp": 1_000_000,
            "io.debezium.time.NanoTimestamp": 1_000_000_000,
            "io.debezium.time.Timestamp": 1000,
            "org.apache.kafka.connect.data.Timestamp": 1000,
        }[name]
        secs, frac = divmod(v, unit)
        local = _EPOCH + dt.timedelta(seconds=secs)
        return (secs - self._offset_for_local(local)) * unit + frac

    def _epoch(self, name: str, v: Any) -> Any:
        unit = _EPOCH_FIELDS[name]
        return v + self._offset_at(v // unit) * unit

    # -- which fields (Debezium's handleStructs / handleValueForFields)
    def _structs(self, value: dict, schema: Schema, mode: str, fields: set[str]) -> None:
        per = {"before": set(), "after": set(), "source": set()}
        for f in fields:
            for p in ("source.", "before.", "after."):
                if f.startswith(p):
                    per[p[:-1]].add(f[len(p) :])
                    break
            else:
                per["before"].add(f)
                per["after"].add(f)
        for part in ("before", "after", "source"):
            sf = field_of(schema, part)
            struct = value.get(part) if sf is not None else None
            if not isinstance(struct, dict) or (part == "source" and not per["source"]):
                continue
            struct = value[part] = dict(struct)  # a copy: record values share the connector's row dicts
            for f in sf.schema.fields:
                name = f.schema.name
                epoch = part == "source" and f.name in _EPOCH_FIELDS
                if name is None and not epoch:
                    continue
                include = (
                    mode == "all"
                    or (mode == "include" and f.name in per[part])
                    or (mode == "exclude" and f.name not in per[part])
                )
                if not include or not (name in _SUPPORTED or epoch):
                    continue
                v = fget(f, struct)
                if v is None:
                    continue
                struct[f.name] = self._convert(name, v) if name is not None else self._epoch(f.name, v)

    def _match(self, table: str | None, topic: str) -> tuple[str | None, set[str]]:
        if topic in self.topic_fields:
            return topic, self.topic_fields[topic]
        if table in self.table_fields:
            return table, self.table_fields[table]
        if topic in self.plain_fields:
            return topic, self.plain_fields[topic]
        if table in self.plain_fields:
            return table, self.plain_fields[table]
        return None, set()

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        if r.value is None or not is_envelope(r):
            return r
        value = dict(r.value)  # changed parts are copies (_structs), never the record's own dicts
        r = ConnectRecord(
            r.topic, r.partition, r.key_schema, r.key, r.value_schema, value, r.headers, r.timestamp
        )
        source = value.get("source")
        table = source.get("table") if isinstance(source, dict) else None
        if not self.include and not self.exclude:
            if (
                r.topic not in self.topic_fields
                and table not in self.table_fields
                and table not in self.plain_fields
            ):
                self._structs(value, r.value_schema, "all", set())
        elif self.include:
            name, fields = self._match(table, r.topic)
            if name is not None:
                self._structs(value, r.value_schema, "include" if fields else "all", fields)
        else:
            name, fields = self._match(table, r.topic)
            if name is None:
                self._structs(value, r.value_schema, "all", set())
            elif fields:
                self._structs(value, r.value_schema, "exclude", fields)
        return r


@register("io.debezium.connector.mysql.transforms.ReadToInsertEvent")
class ReadToInsertEvent(Transform):
    """Debezium's MySQL `ReadToInsertEvent` (3.6.3 bytecode; no option): a change event whose `op` is `r` (a
    snapshot read) becomes `c`, put into the value struct in place, in a new record (`newRecord` with 7 arguments:
    duplicated headers); any other record (tombstones, other envelopes, schema changes, anything whose value
    schema is not an `.Envelope`) is returned itself, so it keeps its headers object (shared_headers)."""

    in_place_headers = "adds, same record"  # emulator.connect.shared_headers.ADDS_KEEPS_RECORD

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        if r.value is None or not is_envelope(r):
            return r
        value = require_struct(r.value, "op")
        op_field = field_of(r.value_schema, "op")
        if op_field is None:  # Struct.getString
            raise TransformError("op is not a valid field name")
        if fget(op_field, value) != "r":
            return r
        return ConnectRecord(
            r.topic,
            r.partition,
            r.key_schema,
            r.key,
            r.value_schema,
            {**value, "op": "c"},
            list(r.headers),
            r.timestamp,
        )
