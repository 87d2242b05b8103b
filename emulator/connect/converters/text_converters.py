"""Kafka's `StringConverter` and `ByteArrayConverter`, and `SimpleHeaderConverter` (Connect's default
header converter).

* `StringConverter` writes `value.toString()` (UTF-8): strings as they are, numbers as Java prints them,
  a struct as `Struct{a=1,b=x}` (null fields left out), a map as `{k=v, k2=v2}`, a list as `[a, b]`.
* `ByteArrayConverter` passes `bytes` through; any other schema is an error, as in Kafka.
* `SimpleHeaderConverter` writes `Values.convertToString`: top-level strings raw, structs / maps / lists
  JSON-like (`{"id":1,"s":"x"}`, strings quoted with `\\` and `"` escaped), bytes as base64, Kafka
  Date/Time/Timestamp as ISO text, a null field printed as its default (Connect's `Struct.get`).
"""

from __future__ import annotations

import base64
import codecs
from decimal import Decimal
from typing import Any

from emulator.connect.converters.errors import ConversionError
from emulator.connect.javatext import (
    MILLIS_PER_DAY,
    date_text,
    decimal_text,
    double_text,
    float_text,
    util_date_text,
)
from emulator.connect.record import ByteArray, default_value
from emulator.connect.schema import Schema

KAFKA_DATE = "org.apache.kafka.connect.data.Date"
KAFKA_TIME = "org.apache.kafka.connect.data.Time"
KAFKA_TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"
_KAFKA_TEMPORAL = (KAFKA_DATE, KAFKA_TIME, KAFKA_TIMESTAMP)


def _millis(schema: Schema, value: int) -> int:
    return value * MILLIS_PER_DAY if schema.name == KAFKA_DATE else value


def _number_text(schema: Schema | None, value: Any) -> str | None:
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return float_text(value) if schema is not None and schema.type == "float" else double_text(value)
    if isinstance(value, Decimal):
        return decimal_text(value)
    return None


# ------------------------------------------------------------------------------------ StringConverter

VARIABLE_SCALE_DECIMAL = "io.debezium.data.VariableScaleDecimal"


def _byte_array_text(value: Any) -> str:
    # Java prints byte[] as "[B@" + identity hash: not reproducible; see docs/converters.md
    return "[B@" + format(hash(bytes(value)) & 0x7FFFFFFF, "x")


def java_to_string(schema: Schema | None, value: Any) -> str:
    """`Object.toString()` of the Java object Connect would hold for this model value."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if schema is not None and schema.name in _KAFKA_TEMPORAL and isinstance(value, int):
        return util_date_text(_millis(schema, value))
    text = _number_text(schema, value)
    if text is not None:
        return text
    if isinstance(value, (bytes, bytearray, memoryview)):
        if schema is not None and schema.name is None and value.__class__ is not ByteArray:
            # the relational connectors hold a plain BYTES column as a ByteBuffer (Java's toString);
            # byte[] (below) in a VariableScaleDecimal's value and a Bits
            return f"java.nio.HeapByteBuffer[pos=0 lim={len(value)} cap={len(value)}]"
        return _byte_array_text(value)
    if isinstance(value, list):
        item = schema.items if schema is not None else None
        return "[" + ", ".join(java_to_string(item, x) for x in value) + "]"
    if isinstance(value, dict):
        if schema is not None and schema.type == "struct":
            vsd = schema.name == VARIABLE_SCALE_DECIMAL
            parts = [
                f"{f.name}="
                + (
                    _byte_array_text(value[f.name])
                    if vsd and f.name == "value"
                    else java_to_string(f.schema, value.get(f.name))
                )
                for f in schema.fields or ()
                if value.get(f.name) is not None
            ]
            return "Struct{" + ",".join(parts) + "}"
        ks = schema.keys if schema is not None else None
        vs = schema.values if schema is not None else None
        return (
            "{"
            + ", ".join(f"{java_to_string(ks, k)}={java_to_string(vs, x)}" for k, x in value.items())
            + "}"
        )
    raise ConversionError(f"StringConverter: cannot print {type(value).__name__}")


def java_encode(text: str, charset: str) -> bytes:
    """`String.getBytes(Charset)` (StringSerializer): a character the charset lacks is `?` (Python's strict
    encoder raised), `UTF-16` is a big-endian BOM then big-endian units and nothing for "" (Python: native order),
    `UTF-32` big-endian without a BOM (Python: a BOM, native order); checked with JDK 17."""
    name = codecs.lookup(charset).name
    if name == "utf-16":
        return b"\xfe\xff" + text.encode("utf-16-be", "replace") if text else b""
    if name == "utf-32":
        return text.encode("utf-32-be", "replace")
    return text.encode(name, "replace")


class StringConverter:
    def __init__(self, encoding: str = "UTF-8") -> None:
        self.encoding = encoding

    def from_connect_data(self, topic: str, headers: Any, schema: Schema | None, value: Any) -> bytes | None:
        if value is None:
            return None
        return java_encode(java_to_string(schema, value), self.encoding)

    def from_connect_header(self, topic: str, name: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, None, schema, value)


class ByteArrayConverter:
    def from_connect_data(self, topic: str, headers: Any, schema: Schema | None, value: Any) -> bytes | None:
        if schema is not None and schema.type != "bytes":
            # Kafka prints the Schema.Type enum's name
            raise ConversionError(f"Invalid schema type for ByteArrayConverter: {schema.type_name()}")
        if value is not None and not isinstance(value, (bytes, bytearray, memoryview)):
            raise ConversionError(f"ByteArrayConverter is not compatible with objects of type {type(value)}")
        return None if value is None else bytes(value)

    def from_connect_header(self, topic: str, name: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, None, schema, value)


# ------------------------------------------------------------------------------ SimpleHeaderConverter


def _escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def values_to_string(schema: Schema | None, value: Any, embedded: bool = False) -> str:
    """Connect's `Values.convertToString` / `Values.append`."""
    if value is None:
        return "null"
    if schema is not None and schema.name in _KAFKA_TEMPORAL and isinstance(value, int):
        # never quoted, even inside a struct/list/map: Values.append formats a java.util.Date bare
        # (connect case pg_headerfrom_connect_time: `"created":2024-01-15`)
        return date_text(_millis(schema, value))
    text = _number_text(schema, value)
    if text is not None:
        return text
    if isinstance(value, str):
        return f'"{_escape(value)}"' if embedded else value
    if isinstance(value, (bytes, bytearray, memoryview)):
        text = base64.b64encode(bytes(value)).decode()
        return f'"{text}"' if embedded else text
    if isinstance(value, list):
        item = schema.items if schema is not None else None
        return "[" + ",".join(values_to_string(item, x, True) for x in value) + "]"
    if isinstance(value, dict):
        if schema is not None and schema.type == "struct":
            parts = []
            for f in schema.fields or ():
                x = value.get(f.name)
                if x is None and f.schema.default is not None:
                    x = default_value(f.schema)
                parts.append(f'"{_escape(f.name)}":{values_to_string(f.schema, x, True)}')
            return "{" + ",".join(parts) + "}"
        ks = schema.keys if schema is not None else None
        vs = schema.values if schema is not None else None
        return (
            "{"
            + ",".join(
                f"{values_to_string(ks, k, True)}:{values_to_string(vs, x, True)}" for k, x in value.items()
            )
            + "}"
        )
    raise ConversionError(f"SimpleHeaderConverter: cannot print {type(value).__name__}")


class SimpleHeaderConverter:
    def from_connect_header(self, topic: str, name: str, schema: Schema | None, value: Any) -> bytes | None:
        if value is None:
            return None
        return values_to_string(schema, value).encode()
