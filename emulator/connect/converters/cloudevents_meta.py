"""Where Debezium's CloudEventsConverter takes a record's metadata from (`metadata.source`,
`opentelemetry.tracing.attributes.enable`, `schema.data.name.source.header.enable`), as
`CloudEventsConverterConfig.metadataSource()` of Debezium 3.6.3 parses them, and the reading of a metadata
header (`RecordAndMetadataHeaderImpl`).

`metadata.source` is a list: a global source (`value` or `header`: where `source`, `op` and `transaction`
come from) and `field:source` pairs for `id`, `type`, `traceparent` and `dataSchemaName` (`generate` or
`header`); a field not named takes the global source. `traceparent:header` counts only with tracing
enabled and `dataSchemaName:header` only with `schema.data.name.source.header.enable` (Debezium's backward
compatibility): otherwise they are `generate`. A source that is `value` for a field (the global one) means
the record's value, which has no `id` / `type` (null) nor `traceparent` (the record fails).

Headers reach the converter as the header converter made them (Connect converts headers first) and are read
back with a JsonConverter with schemas, so anything but JsonConverter-with-schemas bytes fails the record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from emulator.config import ConfigError
from emulator.connect.converters.errors import ConversionError
from emulator.connect.record import parse_json, schema_from_json
from emulator.connect.schema import FLOAT32, FLOAT64, Schema

VALUE, HEADER, GENERATE = "value", "header", "generate"
DEFAULT = "value,id:generate,type:generate,traceparent:header,dataSchemaName:generate"
_FIELDS = {"id": "id", "type": "type", "traceparent": "traceparent", "dataSchemaName": "data_schema_name"}


@dataclass(frozen=True, slots=True)
class MetadataSource:
    global_: str = VALUE
    id: str = GENERATE
    type: str = GENERATE
    traceparent: str = GENERATE
    data_schema_name: str = GENERATE

    @property
    def base(self) -> bool:
        """No source is a header (Debezium's `RecordAndMetadataBaseImpl`)."""
        return HEADER not in (self.global_, self.id, self.type, self.traceparent, self.data_schema_name)


def _source_value(text: str) -> str | None:
    v = text.strip().lower()  # MetadataSourceValue.parse: trimmed, case-insensitive
    return v if v in (VALUE, HEADER, GENERATE) else None


def parse(name: str, text: str | None, tracing: bool, data_name_from_header: bool) -> MetadataSource:
    """`metadataSource()`; a value Debezium refuses raises ConfigError naming the property `name`."""
    # ConfigDef LIST: trimmed, split on commas with the blanks around them
    items = [s.strip() for s in (DEFAULT if text is None else text).strip().split(",")]
    if items == [""]:
        raise ConfigError(f"{name}: empty (Debezium fails at start: no global metadata source)", name)
    glob = _source_value(items[0])
    if glob not in (VALUE, HEADER):
        raise ConfigError(f"{name}: Global metadata source can't be {items[0].strip()}", name)
    chosen: dict[str, str] = {}
    for item in items[1:]:
        parts = item.split(":")
        if len(parts) < 2:
            raise ConfigError(f"{name}: {item!r} is not field:source (Debezium fails at start)", name)
        src = _source_value(parts[1])
        if src is None:
            raise ConfigError(f"{name}: Field source `{parts[1]}` is not valid", name)
        if src == VALUE:
            raise ConfigError(f"{name}: Field metadata source can't be VALUE", name)
        if parts[0] not in _FIELDS:  # not trimmed, case-sensitive, as Debezium's switch
            raise ConfigError(f"{name}: Field `{parts[0]}` is not allowed to set custom source", name)
        chosen[_FIELDS[parts[0]]] = src
    srcs = {f: chosen.get(f, glob) for f in _FIELDS.values()}
    if srcs["traceparent"] == HEADER and not tracing:
        srcs["traceparent"] = GENERATE
    if srcs["data_schema_name"] == HEADER and not data_name_from_header:
        srcs["data_schema_name"] = GENERATE
    return MetadataSource(glob, **srcs)


def last_header(headers: Any, name: str) -> tuple[bool, bytes | None]:
    """Kafka's `Headers.lastHeader`: (found, its bytes)."""
    for n, raw in reversed(headers or ()):
        if n == name:
            return True, raw
    return False, None


def read_header(raw: bytes | None) -> tuple[Schema | None, Any]:
    """JsonConverter (schemas.enable=true) `toConnectData` of a header's bytes -> (schema, model value)."""
    if raw is None:
        return None, None
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ConversionError(
            "Converting byte[] to Kafka Connect data failed due to serialization error: "
        ) from None
    if not isinstance(obj, dict) or obj.keys() != {"schema", "payload"}:
        raise ConversionError(
            'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain '
            "additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in "
            "your converter configuration."
        )
    if obj["schema"] is None:
        return None, obj["payload"]
    schema = schema_from_json(obj["schema"])
    return schema, parse_json(schema, obj["payload"])


def header_value(headers: Any, name: str, optional: bool) -> tuple[Schema | None, Any]:
    """`getHeaderSchemaAndValue`: a missing header is null when optional, else the record fails."""
    found, raw = last_header(headers, name)
    if not found:
        if optional:
            return None, None
        raise ConversionError(f"Header `{name}` was not provided")
    return read_header(raw)


def header_string(headers: Any, name: str, optional: bool) -> str | None:
    """A header read where Debezium casts it to `String` (a number or struct fails the record)."""
    _schema, value = header_value(headers, name, optional)
    if value is not None and not isinstance(value, str):
        cls = _java_base_class(_schema, value)
        if cls is None:  # a Struct: its class loader's name is the runtime's, not followed
            raise ConversionError(f"class of header `{name}` cannot be cast to class java.lang.String")
        # the JDK's ClassCastException text (connect campaign seed 117 trial 2: an int8 header, java.lang.Byte)
        raise ConversionError(
            f"class {cls} cannot be cast to class java.lang.String ({cls} and java.lang.String are in module "
            "java.base of loader 'bootstrap')"
        )
    return value


# JsonConverter.toConnectData's Java classes per Connect type (no schema: integral numbers are Long); the
# emulator's Schema names float32 / float64 by their JSON names (`float`, `double`: FLOAT32 / FLOAT64), which a
# table keyed "float32" missed (a float header then got the Struct text: connect campaign 125 trial 15)
_JAVA_CLASSES = {
    "int8": "java.lang.Byte",
    "int16": "java.lang.Short",
    "int32": "java.lang.Integer",
    "int64": "java.lang.Long",
    FLOAT32: "java.lang.Float",
    FLOAT64: "java.lang.Double",
    "boolean": "java.lang.Boolean",
    "bytes": "[B",
    "array": "java.util.ArrayList",
    "map": "java.util.HashMap",
}
_LOGICAL_CLASSES = {
    "org.apache.kafka.connect.data.Decimal": "java.math.BigDecimal",
    "org.apache.kafka.connect.data.Date": "java.util.Date",
    "org.apache.kafka.connect.data.Time": "java.util.Date",
    "org.apache.kafka.connect.data.Timestamp": "java.util.Date",
}


def _java_base_class(schema: Schema | None, value: Any) -> str | None:
    if schema is None:
        kinds = {bool: "boolean", int: "int64", float: FLOAT64, list: "array", dict: "map"}
        return _JAVA_CLASSES.get(kinds.get(type(value), ""))
    return _LOGICAL_CLASSES.get(schema.name or "") or _JAVA_CLASSES.get(schema.type)
