"""Kafka's `MaskField` ($Key / $Value): fields replaced by their type's empty value or a replacement."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from emulator.connect.javatext import MisscaledDecimal
from emulator.connect.record import DECIMAL, ConnectRecord
from emulator.connect.schema import Schema
from emulator.connect.transforms.base import (
    Options,
    TransformError,
    fget,
    put_raw,
    require_map,
    require_struct,
)
from emulator.connect.transforms.keyvalue import (
    DATE,
    TIME,
    TIMESTAMP,
    K,
    KeyOrValue,
    register_both,
)

# ------------------------------------------------------------------------------------------ MaskField


def _java_kind(schema: Schema | None, value: Any) -> str:
    """The Java class of a Connect value of this schema (MaskField picks replacements by class)."""
    if schema is None:
        if isinstance(value, bool):
            return "Boolean"
        if isinstance(value, int):
            return "Long" if abs(value) > 2**31 - 1 else "Integer"
        if isinstance(value, float):
            return "Double"
        if isinstance(value, str):
            return "String"
        if isinstance(value, Decimal):
            return "BigDecimal"
        if isinstance(value, list):
            return "List"
        if isinstance(value, dict):
            return "Map"
        return "byte[]"
    if schema.name == DECIMAL:
        return "BigDecimal"
    if schema.name in (TIMESTAMP, DATE, TIME):
        return "Date"
    return {
        "int8": "Byte",
        "int16": "Short",
        "int32": "Integer",
        "int64": "Long",
        "float": "Float",
        "double": "Double",
        "boolean": "Boolean",
        "string": "String",
        "bytes": "byte[]",
        "array": "List",
        "map": "Map",
        "struct": "Struct",
    }[schema.type]


_MASK_DEFAULT = {
    "Boolean": False,
    "Byte": 0,
    "Short": 0,
    "Integer": 0,
    "Long": 0,
    "Float": 0.0,
    "Double": 0.0,
    "BigDecimal": Decimal(0),
    "Date": 0,
    "String": "",
}
_JAVA_CLASS = {
    "Boolean": "class java.lang.Boolean",
    "String": "class java.lang.String",
    "byte[]": "class [B",
    "Struct": "class org.apache.kafka.connect.data.Struct",
    "Date": "class java.util.Date",
    "List": "class java.util.ArrayList",
    "Map": "class java.util.HashMap",
}


class MaskFieldT(KeyOrValue):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        if opts.raw("fields") is None:
            raise opts.fail("fields", 'Missing required configuration "fields" which has no default value.')
        self.fields = set(opts.list("fields"))
        if not self.fields:
            raise opts.fail("fields", "Empty list")
        self.replacement = opts.str("replacement")
        if self.replacement is not None and not self.replacement.strip():
            raise opts.fail("replacement", "String must be non-empty")
        self.replace_null = opts.bool("replace.null.with.default", True)

    def masked(self, schema: Schema | None, value: Any) -> Any:
        if value is None:
            return None
        kind = _java_kind(schema, value)
        if self.replacement is None:
            if kind in _MASK_DEFAULT:
                if kind == "BigDecimal" and schema is not None:
                    # BigDecimal.ZERO (connect-transforms 4.3.0), scale 0 whatever the schema's: a Decimal of
                    # another scale then fails in the converter (javatext.MisscaledDecimal; connect seed 97
                    # trial 18, minimized without `replacement`)
                    scale = int((schema.parameters or {}).get("scale", "0"))
                    return MisscaledDecimal(0) if scale else Decimal(0)
                return _MASK_DEFAULT[kind]
            if kind == "List":
                return []
            if kind == "Map":
                return {}
            raise TransformError(f"Cannot mask value of type: {_JAVA_CLASS.get(kind, kind)}")
        rep = self.replacement
        try:
            if kind in ("Byte", "Short", "Integer", "Long"):
                return int(rep.strip())
            if kind in ("Float", "Double"):
                return float(rep.strip())
            if kind == "BigDecimal":
                d = Decimal(rep)
                if schema is not None and schema.name == DECIMAL:
                    scale = int((schema.parameters or {}).get("scale", "0"))
                    if d.as_tuple().exponent != -scale:  # the converter's Decimal.fromLogical fails it
                        return MisscaledDecimal(rep)
                return d
            if kind == "String":
                return rep
        except ValueError:
            raise TransformError(f"Unable to convert {rep} (class java.lang.String) to number") from None
        raise TransformError(
            f"Cannot mask value of type {_JAVA_CLASS.get(kind, kind)} with custom replacement."
        )

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        value = self.value_of(r)  # no null shortcut: Connect's MaskField fails on tombstones
        schema = self.schema_of(r)
        if schema is None:
            v = dict(require_map(value, "mask fields"))
            for name in self.fields:
                if name in v:
                    v[name] = self.masked(None, v[name])
            return self.new(r, None, v)
        v = require_struct(value, "mask fields", schema)
        if not self.replace_null:
            put_raw(schema, v)  # a masked null stays null
        out = {}
        for f in schema.fields:
            x = fget(f, v) if self.replace_null else v.get(f.name)
            out[f.name] = self.masked(f.schema, x) if f.name in self.fields else x
        return self.new(r, schema, out)


register_both(MaskFieldT, K + "MaskField")
