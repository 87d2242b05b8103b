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
"""

from __future__ import annotations

import base64
import datetime as dt
import re
from typing import Any

import orjson

from emulator.connect.converters.avro_converter import AvroConverter
from emulator.connect.converters.errors import ConversionError
from emulator.connect.converters.json_converter import JsonConverter
from emulator.connect.record import default_value
from emulator.connect.schema import Field, Schema

_NON_ALNUM = re.compile(r"[^a-zA-Z0-9]")
# the connectors whose CloudEvents id is emulated (Debezium's per-connector CloudEventsMaker)
_ID_KINDS = {"io.debezium.connector.postgresql": "postgresql", "io.debezium.connector.mysql": "mysql"}
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_dumps = orjson.dumps


def extension_name(name: str) -> str:
    return "iodebezium" + _NON_ALNUM.sub("", name)


def _iso_millis(ms: int) -> str:
    t = _EPOCH + dt.timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


class CloudEventsConverter:
    def __init__(
        self, data: JsonConverter | AvroConverter, extensions: bool = True, registry_url: str | None = None
    ) -> None:
        self.data = data
        self.extensions = extensions
        self.registry_url = registry_url
        self._data_schemas: dict[int, tuple[Schema, Schema, list]] = {}

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
        ext = [
            (
                extension_name(f.name),
                f.name,
                f.schema.type == "int64",
                default_value(f.schema) if f.schema.default is not None else None,
            )
            for f in source.fields or ()
        ]
        plan = (data_schema, ext, ns, kind)
        self._data_schemas[id(schema)] = (schema, plan)
        return plan

    def from_connect_data(self, topic: str, headers: Any, schema: Schema | None, value: Any) -> bytes | None:
        if schema is None or value is None:
            return None
        if schema.name is None:  # Envelope.isEnvelopeSchema(schema.name()) on Java 17
            raise ConversionError('Cannot invoke "String.endsWith(String)" because "schemaName" is null')
        if not schema.name.endswith(".Envelope"):
            return None  # schema changes, heartbeats, transaction markers: not data change events
        if schema.type != "struct":
            raise ConversionError("CloudEventsConverter: mismatching schema")
        plan = self._plan(schema)
        if plan is None:
            return None
        data_schema, ext, ns, kind = plan
        src = value.get("source") or {}
        name = src.get("name")
        if kind == "postgresql":
            ce_id = (
                f"name:{name};lsn:{_s(src.get('lsn'))};txId:{_s(src.get('txId'))};"
                f"sequence:{_s(src.get('sequence'))}"
            )
        else:  # mysql
            ce_id = f"name:{name};file:{_s(src.get('file'))};pos:{_s(src.get('pos'))}"
        ev: dict[str, Any] = {
            "id": ce_id,
            "source": f"/debezium/{src.get('connector')}/{name}",
            "specversion": "1.0",
            "type": f"{ns}.DataChangeEvent",
            "time": _iso_millis(src.get("ts_ms") or 0),
        }
        data_value = {"before": value.get("before"), "after": value.get("after")}
        if isinstance(self.data, AvroConverter):
            raw = self.data.from_connect_data(topic, None, data_schema, data_value)
            ev["datacontenttype"] = "application/avro"
            ev["dataschema"] = f"{self.registry_url}/schemas/ids/{int.from_bytes(raw[1:5], 'big')}"
            data = base64.b64encode(raw).decode()
        else:
            ev["datacontenttype"] = "application/json"
            data = orjson.Fragment(self.data.from_connect_data(topic, None, data_schema, data_value))
        if self.extensions:
            ev["iodebeziumop"] = value.get("op")
            for ext_name, fname, is_long, dflt in ext:
                x = src.get(fname)
                if x is None:
                    x = dflt
                ev[ext_name] = str(x) if is_long and x is not None else x
            tx = value.get("transaction")
            ev["iodebeziumtxid"] = tx.get("id") if tx else None
            ev["iodebeziumtxtotalorder"] = str(tx["total_order"]) if tx else None
            ev["iodebeziumtxdatacollectionorder"] = str(tx["data_collection_order"]) if tx else None
        ev["data"] = data
        return _dumps(ev)

    def from_connect_header(self, topic: str, name: str, schema: Schema | None, value: Any) -> bytes | None:
        raise ConversionError("CloudEventsConverter cannot convert headers")


def _s(v: Any) -> str:
    return "null" if v is None else str(v)
