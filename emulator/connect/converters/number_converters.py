"""Kafka's `NumberConverter`s (`IntegerConverter`, `LongConverter`, `ShortConverter`, `FloatConverter`,
`DoubleConverter`) and `BooleanConverter` (connect-runtime 4.3.0, read from its bytecode): Converters and
HeaderConverters with no option but `converter.type`.

* A NumberConverter ignores the schema and hands the value to its Kafka serializer: the Java object must be of
  exactly the serializer's class (Integer for `int32`, Long for `int64`, Short for `int16`, Float for `float32`,
  Double for `float64`), any other (a Struct, a String, a Byte, a Kafka Date, a BigDecimal) fails the record with
  a ClassCastException turned into "Failed to serialize to <type> (was <class>)". The bytes are big-endian: 4, 8
  or 2 bytes of the integer, the float's or double's raw IEEE bits.
* BooleanConverter fails a schema that is not BOOLEAN ("Invalid schema type for BooleanConverter: <TYPE>"), then
  writes one byte, 1 or 0, for a Boolean (anything else fails the record).
* null is null for both (a tombstone stays one).

The Java class of a Connect value follows from its schema (record.py's values hold no Java class): a value
without a schema is a number whose class is unknown here, so that record stops the task (NotEmulated) instead
of being guessed.
"""

from __future__ import annotations

import struct
from decimal import Decimal
from typing import Any

from emulator.connect.converters.errors import ConversionError, NotEmulated
from emulator.connect.schema import Schema

_LOGICAL_CLASSES = {
    "org.apache.kafka.connect.data.Date": "java.util.Date",
    "org.apache.kafka.connect.data.Time": "java.util.Date",
    "org.apache.kafka.connect.data.Timestamp": "java.util.Date",
    "org.apache.kafka.connect.data.Decimal": "java.math.BigDecimal",
}
_CLASSES = {
    "int8": "java.lang.Byte",
    "int16": "java.lang.Short",
    "int32": "java.lang.Integer",
    "int64": "java.lang.Long",
    "float": "java.lang.Float",
    "double": "java.lang.Double",
    "boolean": "java.lang.Boolean",
    "string": "java.lang.String",
    "bytes": "java.nio.HeapByteBuffer",
    "struct": "org.apache.kafka.connect.data.Struct",
    "array": "java.util.ArrayList",
    "map": "java.util.HashMap",
}


def java_class(schema: Schema | None, value: Any) -> str:
    """The class of the Java object Connect holds for a non-null model value."""
    if schema is None:
        if isinstance(value, str):
            return "java.lang.String"
        if value is True or value is False:
            return "java.lang.Boolean"
        if isinstance(value, dict):
            return "java.util.HashMap"
        if isinstance(value, list):
            return "java.util.ArrayList"
        if isinstance(value, Decimal):
            return "java.math.BigDecimal"
        raise NotEmulated(
            f"a schemaless {type(value).__name__} value through a Number/BooleanConverter: its Java class "
            "(Integer or Long, Float or Double) is not known here"
        )
    logical = _LOGICAL_CLASSES.get(schema.name or "")
    if logical is not None:
        return logical
    return _CLASSES.get(schema.type, schema.type)


class NumberConverter:
    def __init__(self, type_name: str, java: str, fmt: str) -> None:
        self.type_name = type_name
        self.java = java
        self.pack = struct.Struct(fmt).pack

    def from_connect_data(self, topic: str, headers: Any, schema: Schema | None, value: Any) -> bytes | None:
        if value is None:
            return None
        cls = java_class(schema, value)
        if cls != self.java:
            raise ConversionError(f"Failed to serialize to {self.type_name} (was class {cls}): ")
        return self.pack(value)

    def from_connect_header(self, topic: str, name: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, None, schema, value)


class BooleanConverter:
    def from_connect_data(self, topic: str, headers: Any, schema: Schema | None, value: Any) -> bytes | None:
        if schema is not None and schema.type != "boolean":
            raise ConversionError(f"Invalid schema type for BooleanConverter: {schema.type_name()}")
        if value is None:
            return None
        if value is not True and value is not False:
            raise ConversionError(
                f"BooleanConverter is not compatible with objects of type class {type(value)}"
            )
        return b"\x01" if value else b"\x00"

    def from_connect_header(self, topic: str, name: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, None, schema, value)


PREFIX = "org.apache.kafka.connect.converters."
NUMBER_CONVERTERS = {
    PREFIX + "IntegerConverter": ("integer", "java.lang.Integer", ">i"),
    PREFIX + "LongConverter": ("long", "java.lang.Long", ">q"),
    PREFIX + "ShortConverter": ("short", "java.lang.Short", ">h"),
    PREFIX + "FloatConverter": ("float", "java.lang.Float", ">f"),
    PREFIX + "DoubleConverter": ("double", "java.lang.Double", ">d"),
}
BOOLEAN = PREFIX + "BooleanConverter"
CLASSES = (*NUMBER_CONVERTERS, BOOLEAN)


def build(cls: str) -> NumberConverter | BooleanConverter:
    if cls == BOOLEAN:
        return BooleanConverter()
    return NumberConverter(*NUMBER_CONVERTERS[cls])
