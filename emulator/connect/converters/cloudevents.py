"""Debezium's `io.debezium.converters.CloudEventsConverter` (serializer.type=json) for the change events of
the PostgreSQL and MySQL connectors (other records -- schema changes, heartbeats, transaction markers --
become null, as in Debezium).

The event is a JSON object (no schema) in this order: `id` (PostgreSQL `name:N;lsn:L;txId:T;sequence:S`,
MySQL `name:N;file:F;pos:P`), `source` (`/debezium/<connector>/<name>`), `specversion` 1.0, `type`
(`io.debezium.connector.<connector>.DataChangeEvent`),
`time` (source `ts_ms` as ISO-8601 UTC millis), `datacontenttype`, [`dataschema`], then the extension
attributes `iodebeziumop` and `iodebezium<source field>` (non-alphanumerics dropped; int64 as strings, a
null field as its default), `iodebeziumtxid` / `iodebeziumtxtotalorder` / `iodebeziumtxdatacollectionorder`,
and `data`: the `before`/`after` struct `<source namespace>.Data`, as JsonConverter prints it (with
`{"schema","payload"}` when `json.schemas.enable`, the default) or, with `data.serializer.type=avro`, its
Confluent Avro bytes (base64) with `dataschema` = `<registry url>/schemas/ids/<id>`.

Also, as Debezium 3.6.3: `traceparent` after `dataschema` with tracing; `metadata.source`
(cloudevents_meta) taking `id` / `type` / `traceparent` / `dataSchemaName` from headers, or with the global
`header` source the record's `source` / `op` / `transaction` from headers and the whole value as `data`;
`serializer.type=avro`, the event an Avro record (`<server>.<db>.CloudEvents.Envelope` or
`schema.cloudevents.name`) whose `data` is the Avro bytes written under `<topic>-data`. Avro data is written
before the metadata is read, so a record that fails on its metadata has registered the data's schema.
"""

from __future__ import annotations

import base64
import datetime as dt
import re
from collections.abc import Callable
from typing import Any

import orjson

from emulator.connect.converters.avro_converter import AvroConverter
from emulator.connect.converters.cloudevents_meta import (
    GENERATE,
    HEADER,
    VALUE,
    MetadataSource,
    header_string,
    header_value,
    last_header,
)
from emulator.connect.converters.errors import ConversionError
from emulator.connect.converters.json_converter import JsonConverter
from emulator.connect.record import default_value
from emulator.connect.schema import Field, Schema

_NON_ALNUM = re.compile(r"[^a-zA-Z0-9]")
# the connectors whose CloudEvents id is emulated (Debezium's per-connector CloudEventsMaker)
_ID_KINDS = {"io.debezium.connector.postgresql": "postgresql", "io.debezium.connector.mysql": "mysql"}
# source.connector -> the id kind (metadata.source=header: Debezium picks its CloudEventsProvider by it)
_KINDS = {"postgresql": "postgresql", "mysql": "mysql"}
DATA_SCHEMA_NAME = "dataSchemaName"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_dumps = orjson.dumps


def extension_name(name: str) -> str:
    return "iodebezium" + _NON_ALNUM.sub("", name)


def _iso_millis(ms: int) -> str:
    t = _EPOCH + dt.timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


class CloudEventsConverter:
    reads_headers = True  # metadata.source may name headers (Converters.worker_headers)

    def __init__(
        self,
        data: JsonConverter | AvroConverter,
        extensions: bool = True,
        registry_url: str | None = None,
        meta: MetadataSource | None = None,
        tracing: bool = False,
        avro_envelope: bool = False,
        ce_name: str | None = None,
        adjust: Callable[[str], str] | None = None,
    ) -> None:
        self.data = data
        self.extensions = extensions
        self.registry_url = registry_url
        self.meta = meta or MetadataSource()
        self.tracing = tracing  # opentelemetry.tracing.attributes.enable: a `traceparent` attribute
        self._data_schemas: dict[int, tuple[Schema, Schema, list]] = {}
        self._named: dict[tuple[int, str | None], tuple[Schema, Schema]] = {}
        # serializer.type=avro: the envelope through the same AvroConverter, named schema.cloudevents.name or
        # `<server>.<db>.CloudEvents.Envelope`, adjusted by schema.name.adjustment.mode
        self.avro_envelope = avro_envelope
        self.ce_name = ce_name
        self.adjust = adjust
        self._envelopes: dict[tuple[int, str], tuple[list, Schema]] = {}

    def _plan(self, schema: Schema) -> tuple[Schema, list, str, str] | None:
        """(data schema, extension fields, connector namespace, id kind), or None for a record that is not
        a change event (schema changes, heartbeats, transaction markers: Debezium writes null)."""
        hit = self._data_schemas.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        if not schema.name.endswith(".Envelope"):  # Envelope.isEnvelopeSchema: not a data change event
            self._data_schemas[id(schema)] = (schema, None)
            return None
        try:
            source = schema.field("source").schema
            before = schema.field("before").schema
            after = schema.field("after").schema
            schema.field("op")
        except KeyError:  # an envelope a transform changed (ReplaceField renames): Debezium's record parser
            raise ConversionError(
                'Cannot invoke "org.apache.kafka.connect.data.Field.schema()" because the return value of '
                '"org.apache.kafka.connect.data.Schema.field(String)" is null'
            ) from None
        ns = (source.name or "").rsplit(".", 1)[0]
        kind = _ID_KINDS.get(ns)
        if kind is None:
            raise ConversionError(
                f"CloudEventsConverter: events of {ns or 'this connector'} are not emulated"
            )
        data_schema = Schema(
            "struct", name=f"{ns}.Data", fields=[Field("before", before), Field("after", after)]
        )
        plan = (data_schema, _extensions(source), ns, kind)
        self._data_schemas[id(schema)] = (schema, plan)
        return plan

    def _renamed(self, schema: Schema, name: str | None) -> Schema:
        """`schema`'s fields under another name (the data schema of a header's `dataSchemaName`, or the whole
        value's in the header mode), one object per (schema, name) so that the data converter's caches hold."""
        key = (id(schema), name)
        hit = self._named.get(key)
        if hit is not None and hit[0] is schema:
            return hit[1]
        if len(self._named) > 1024:
            self._named.clear()
        renamed = Schema("struct", name=name, fields=list(schema.fields or ()))
        self._named[key] = (schema, renamed)
        return renamed

    def from_connect_data(self, topic: str, headers: Any, schema: Schema | None, value: Any) -> bytes | None:
        if schema is None or value is None:
            return None
        meta = self.meta
        from_value = meta.global_ == VALUE
        if from_value:
            if schema.name is None:  # Envelope.isEnvelopeSchema(schema.name()) on Java 17
                raise ConversionError('Cannot invoke "String.endsWith(String)" because "schemaName" is null')
            if not schema.name.endswith(".Envelope"):
                return None  # schema changes, heartbeats, transaction markers: not data change events
        elif not (last_header(headers, "source")[0] and last_header(headers, "op")[0]):
            return None  # metadata.source=header: a record without them (tombstones, heartbeats, ...)
        if schema.type != "struct":
            raise ConversionError("CloudEventsConverter: mismatching schema")
        if from_value:
            plan = self._plan(schema)
            if plan is None:
                return None
            data_schema, ext, ns, kind = plan
            src = value.get("source") or {}
            data_value = {"before": value.get("before"), "after": value.get("after")}
        else:
            src_schema, src = header_value(headers, "source", False)
            if not isinstance(src, dict) or src_schema is None or src_schema.type != "struct":
                raise ConversionError("the `source` header is not a struct (class cast)")
            connector = src.get("connector")
            kind = _KINDS.get(connector)
            if kind is None:
                raise ConversionError(f'No usable CloudEvents converters for connector type "{connector}"')
            ns = f"io.debezium.connector.{connector}"
            ext = _extensions(src_schema)
            # RecordAndMetadataHeaderImpl.dataSchema: every field of the value, read with Struct.get
            data_schema = schema
            data_value = {}
            for f in schema.fields or ():
                x = value.get(f.name)
                data_value[f.name] = default_value(f.schema) if x is None else x
        if meta.data_schema_name == HEADER:
            data_schema = self._renamed(data_schema, header_string(headers, DATA_SCHEMA_NAME, False))
        elif not from_value:
            data_schema = self._renamed(schema, f"{ns}.Data")
        avro_data = isinstance(self.data, AvroConverter)
        if avro_data:
            # Debezium writes Avro data (registering its schema) before it reads id, type, op, ... : a record that
            # fails on those has registered the data's schema (connect seed 90 trial 1, metadata.source=header)
            data_topic = topic + "-data" if self.avro_envelope else topic  # DATA_SCHEMA_SUFFIX
            raw = self.data.from_connect_data(data_topic, None, data_schema, data_value)
        if from_value:
            op = value.get("op")
            tx = value.get("transaction")
        else:
            tx = header_value(headers, "transaction", True)[1]
            if tx is not None and not isinstance(tx, dict):
                raise ConversionError("the `transaction` header is not a struct (class cast)")
        name = src.get("name")
        if meta.id == GENERATE:
            if kind == "postgresql":
                ce_id = (
                    f"name:{name};lsn:{_s(src.get('lsn'))};txId:{_s(src.get('txId'))};"
                    f"sequence:{_s(src.get('sequence'))}"
                )
            else:  # mysql
                ce_id = f"name:{name};file:{_s(src.get('file'))};pos:{_s(src.get('pos'))}"
        else:  # a header, or the value's (RecordAndMetadataBaseImpl.id(): null)
            ce_id = header_string(headers, "id", False) if meta.id == HEADER else None
        if meta.type == GENERATE:
            ce_type = f"{ns}.DataChangeEvent"
        else:
            ce_type = header_string(headers, "type", False) if meta.type == HEADER else None
        for attr, v in (("id", ce_id), ("type", ce_type)):
            if v is None:
                raise ConversionError(
                    f'Invalid value: null used for required field: "{attr}", schema type: STRING'
                )
        ts = src.get("ts_ms")
        if ts is None:
            raise ConversionError('Cannot invoke "java.lang.Long.longValue()" (ts_ms is null)')
        ev: dict[str, Any] = {
            "id": ce_id,
            "source": f"/debezium/{src.get('connector')}/{name}",
            "specversion": "1.0",
            "type": ce_type,
            "time": _iso_millis(ts),
        }
        if avro_data:
            ev["datacontenttype"] = "application/avro"
            ev["dataschema"] = f"{self.registry_url}/schemas/ids/{int.from_bytes(raw[1:5], 'big')}"
        else:
            ev["datacontenttype"] = "application/json"
        if self.tracing:
            if meta.traceparent != HEADER:  # RecordAndMetadataBaseImpl.traceParent()
                raise ConversionError(
                    "Value for `traceparent` CloudEvents field currently can't be obtained from a record value "
                    "and can only be obtained from a record header"
                )
            tp = header_string(headers, "traceparent", True)
            if tp is None:
                raise ConversionError(
                    'Invalid value: null used for required field: "traceparent", schema type: STRING'
                )
            ev["traceparent"] = tp
        if self.extensions:
            if not from_value:
                op = header_string(headers, "op", False)
            ev["iodebeziumop"] = op
            for ext_name, fname, is_long, dflt, _schema in ext:
                x = src.get(fname)
                if x is None:
                    x = dflt
                ev[ext_name] = str(x) if is_long and x is not None else x
            ev["iodebeziumtxid"] = tx.get("id") if tx else None
            ev["iodebeziumtxtotalorder"] = _s_or_none(tx.get("total_order")) if tx else None
            ev["iodebeziumtxdatacollectionorder"] = (
                _s_or_none(tx.get("data_collection_order")) if tx else None
            )
        if self.avro_envelope:  # serializer.type=avro: the event as an Avro record, data as its bytes
            ev["data"] = raw
            ce_name = self.ce_name or f"{name}.{src.get('db')}.CloudEvents.Envelope"
            if self.adjust is not None:
                ce_name = self.adjust(ce_name)
            return self.data.from_connect_data(topic, None, self._envelope_schema(ext, ce_name), ev)
        if avro_data:
            data = base64.b64encode(raw).decode()
        else:
            data = orjson.Fragment(self.data.from_connect_data(topic, None, data_schema, data_value))
        ev["data"] = data
        return _dumps(ev)

    def _envelope_schema(self, ext: list, name: str) -> Schema:
        """The CloudEvents envelope's Connect schema (`convertToCloudEventsFormat`), once per extension plan."""
        key = (id(ext), name)
        hit = self._envelopes.get(key)
        if hit is not None and hit[0] is ext:
            return hit[1]
        string = Schema("string")
        names = ["id", "source", "specversion", "type", "time", "datacontenttype", "dataschema"]
        fields = [Field(n, string) for n in names]
        if self.tracing:
            fields.append(Field("traceparent", string))
        if self.extensions:
            fields.append(Field("iodebeziumop", string))
            fields += [Field(e[0], e[4]) for e in ext]
            opt = Schema("string", optional=True)  # the transaction block's: always optional
            fields += [Field(n, opt) for n in ("iodebeziumtxid", "iodebeziumtxtotalorder")]
            fields.append(Field("iodebeziumtxdatacollectionorder", opt))
        fields.append(Field("data", Schema("bytes")))
        schema = Schema("struct", name=name, fields=fields)
        if len(self._envelopes) > 256:
            self._envelopes.clear()
        self._envelopes[key] = (ext, schema)
        return schema

    def from_connect_header(self, topic: str, name: str, schema: Schema | None, value: Any) -> bytes | None:
        raise ConversionError("CloudEventsConverter cannot convert headers")


# convertToCeExtensionSchema: the attribute's type per source field type
_EXT_TYPES = {"boolean": "boolean", "int8": "int32", "int16": "int32", "int32": "int32"}
_EXT_TYPES.update(string="string", int64="string")


def _extensions(source: Schema) -> list:
    """(attribute name, source field, int64 printed as a string, the field's default, the attribute's schema)
    per source field."""
    out = []
    for f in source.fields or ():
        t = _EXT_TYPES.get(f.schema.type)
        if t is None:
            raise ConversionError(
                f"Source field of type {f.schema.type_name()} cannot be converted into CloudEvents extension "
                "attribute."
            )
        dflt = default_value(f.schema) if f.schema.default is not None else None
        out.append(
            (extension_name(f.name), f.name, f.schema.type == "int64", dflt, Schema(t, f.schema.optional))
        )
    return out


def _s_or_none(v: Any) -> str | None:
    return None if v is None else str(v)


def _s(v: Any) -> str:
    return "null" if v is None else str(v)
