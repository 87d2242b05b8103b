"""Kafka Connect's SimpleHeaderConverter over a header's JsonConverter bytes (the Kafka output's headers).

The records carry their headers as JsonConverter JSON; with Connect's default header converter the Kafka
output writes what `SimpleHeaderConverter.fromConnectHeader` would: `Values.convertToString` of the value.
That is the data plane's own `values_to_string`, on the header read back as JsonConverter's `toConnectData`
would (`schema_from_json`, `parse_json`): one implementation of `Values.append` for both paths (a struct's
NULL field printed as its default, Kafka dates bare, decimals as BigDecimal prints them).
"""

from __future__ import annotations

import orjson

from emulator.connect.converters.text_converters import values_to_string
from emulator.connect.record import parse_json, schema_from_json
from emulator.connect.schema import Schema

# a header's schema JSON -> its Schema (the connectors' header schemas are few: the context headers' string,
# each table's key)
_SCHEMAS: dict[bytes, Schema] = {}
_SCHEMAS_MAX = 1024


def _schema(obj: dict) -> Schema:
    k = orjson.dumps(obj)
    s = _SCHEMAS.get(k)
    if s is None:
        s = schema_from_json(obj)
        if len(_SCHEMAS) < _SCHEMAS_MAX:
            _SCHEMAS[k] = s
    return s


def simple_header_bytes(json_bytes: bytes) -> bytes | None:
    """The bytes `SimpleHeaderConverter.fromConnectHeader` writes for a header whose JsonConverter bytes are
    given (with or without the `{"schema","payload"}` envelope)."""
    doc = orjson.loads(json_bytes)
    if isinstance(doc, dict) and doc.keys() == {"schema", "payload"}:
        schema = _schema(doc["schema"]) if doc["schema"] is not None else None
        value = parse_json(schema, doc["payload"])
    else:  # schemas.enable=false: JsonConverter reads numbers, strings, lists and maps without a schema
        schema, value = None, doc
    if value is None:
        return None
    return values_to_string(schema, value).encode()
