"""Kafka's `Flatten` ($Key / $Value): nested structs and maps flattened into delimiter-joined names."""

from __future__ import annotations

from emulator.connect.record import ByteArray, ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import (
    Options,
    TransformError,
    copy_basics,
    fget,
    require_map,
    require_struct,
)
from emulator.connect.transforms.keyvalue import (
    K,
    KeyOrValue,
    SchemaCache,
    register_both,
)

# -------------------------------------------------------------------------------------------- Flatten

DEBEZIUM_DATA = "io.debezium.data."
_FLAT = ("int8", "int16", "int32", "int64", "float", "double", "boolean", "string", "bytes", "array")


class FlattenT(KeyOrValue):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.delimiter = opts.str("delimiter", ".")
        self.cache = SchemaCache()

    def _name(self, prefix: str, name: str) -> str:
        return name if not prefix else prefix + self.delimiter + name

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        value = self.value_of(r)
        if value is None:
            return r
        schema = self.schema_of(r)
        if schema is None:
            out: dict = {}
            self._schemaless(require_map(value, "flattening"), "", out)
            return self.new(r, None, out)
        v = require_struct(value, "flattening", schema)
        updated = self.cache.get(schema, self._schema)
        out = {f.name: None for f in updated.fields}
        self._values(schema, v, "", out)
        return self.new(r, updated, out)

    def _schemaless(self, value: dict, prefix: str, out: dict) -> None:
        for k, v in value.items():
            name = self._name(prefix, k)
            if isinstance(v, dict):
                self._schemaless(v, name, out)
            else:
                out[name] = v

    def _schema(self, schema: Schema) -> Schema:
        fields: list[Field] = []
        self._fields(schema, "", fields, schema.optional)
        return copy_basics(schema, fields=fields)

    def _fields(self, schema: Schema, prefix: str, out: list[Field], optional: bool) -> None:
        for f in schema.fields:
            name = self._name(prefix, f.name)
            opt = optional or f.schema.optional
            t = f.schema.type
            if t in _FLAT:
                s = f.schema
                out.append(
                    Field(
                        name,
                        Schema(
                            t,
                            optional=opt,
                            name=s.name,
                            version=s.version,
                            doc=s.doc,
                            parameters=s.parameters,
                            default=s.default,
                            items=s.items,
                        ),
                    )
                )
            elif t == "struct":
                self._fields(f.schema, name, out, opt)
            else:
                raise TransformError(
                    f"Flatten transformation does not support {t.upper()} for record with "
                    f"schemas (for field {name})."
                )

    def _values(self, schema: Schema, value: dict | None, prefix: str, out: dict) -> None:
        if value is None:
            return
        # Debezium's logical structs (VariableScaleDecimal's value, the geometries' wkb) hold byte[]; a
        # table row's BYTES columns are ByteBuffers
        logical = (schema.name or "").startswith(DEBEZIUM_DATA)
        for f in schema.fields:
            name = self._name(prefix, f.name)
            if f.schema.type == "struct":
                self._values(f.schema, value.get(f.name), name, out)
            else:
                v = fget(f, value)
                if logical and v.__class__ is bytes:
                    v = ByteArray(v)  # still Debezium's byte[] (StringConverter prints [B@...)
                out[name] = v


register_both(FlattenT, K + "Flatten")
