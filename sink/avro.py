"""Records written by Confluent's `AvroConverter` (issue 15): magic byte 0, a 4-byte big-endian schema id, the
Avro binary body. Each one becomes the same split as a JsonConverter record (`sink.split`): the Connect schema
as JsonConverter prints it, derived from the writer schema as Confluent's `AvroData.toConnectSchema` does
(`connect.name`, `connect.parameters`, `connect.default`, optional = a union with null), and the payload as
JsonConverter prints it (bytes as base64, NaN/Infinity as strings, non-string-keyed maps as pairs). Runs on
executors, per record; each schema id is fetched and compiled once per Python worker.

Registries: a Confluent-compatible URL (`schema.registry.url`, through confluent-kafka's client), or the
`registry.json` the emulator's directory output writes for an in-process `mock://` registry (read again when
an id is not in it yet: the emulator rewrites it as it registers schemas).
"""

from __future__ import annotations

import base64
import io
import math
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import orjson

MAGIC = 0
REGISTRY_FILE = "registry.json"
FILE_WAIT_S = 30.0  # how long a schema id missing from registry.json is waited for
_PRIMITIVE = {"int": "int32", "long": "int64", "float": "float", "double": "double", "boolean": "boolean"}
_PRIMITIVE.update({"string": "string", "bytes": "bytes", "fixed": "bytes", "enum": "string"})
_LOGICAL = {  # Avro logical types without a connect.name: Connect's own logical types
    "date": "org.apache.kafka.connect.data.Date",
    "time-millis": "org.apache.kafka.connect.data.Time",
    "timestamp-millis": "org.apache.kafka.connect.data.Timestamp",
}
DECIMAL = "org.apache.kafka.connect.data.Decimal"
MAP_ENTRY = "io.confluent.connect.avro.MapEntry"
CONNECT_DEFAULT = "io.confluent.connect.avro.ConnectDefault"


class AvroError(Exception):
    pass


def is_avro(data: bytes | None) -> bool:
    return data is not None and len(data) >= 5 and data[0] == MAGIC


# -- Avro schema -> Connect schema (JsonConverter's `schema` document) -------------------------------------


def _full(name: str, space: str | None) -> str:
    return name if "." in name or not space else f"{space}.{name}"


def _default(cs: dict, v: Any) -> Any:
    """An Avro JSON default in JsonConverter's payload form (bytes: ISO-8859-1 text -> base64)."""
    if v is None:
        return None
    t = cs["type"]
    if t == "bytes" and isinstance(v, str):
        return base64.b64encode(v.encode("latin-1")).decode()
    if t == "struct" and isinstance(v, dict):
        return {f["field"]: _default(f, v.get(f["field"])) for f in cs.get("fields", [])}
    if t == "array" and isinstance(v, list):
        return [_default(cs["items"], x) for x in v]
    return v


def connect_schema(avro: Any, names: dict | None = None, space: str | None = None) -> dict:
    """The Connect schema of an Avro schema, as JsonConverter prints it (`field` is set by the caller)."""
    names = {} if names is None else names
    optional = False
    if isinstance(avro, list):
        rest = [b for b in avro if b != "null"]
        if len(rest) != 1 or len(avro) != 2:
            raise AvroError(f"Avro union {orjson.dumps(avro).decode()[:200]} (only [null, T] is supported)")
        optional, avro = True, rest[0]
    if isinstance(avro, str):
        if avro in _PRIMITIVE:
            avro = {"type": avro}
        else:
            ref = names.get(_full(avro, space)) or names.get(avro)
            if ref is None:
                raise AvroError(f"Avro schema names an unknown type {avro!r}")
            avro = ref
    t = avro["type"]
    if isinstance(t, list | dict):  # {"type": {...}} or {"type": [...]}: the inner schema
        inner = connect_schema(t, names, space)
        inner["optional"] = inner["optional"] or optional
        return inner
    out: dict[str, Any] = {}
    if t == "record":
        full = _full(avro["name"], avro.get("namespace", space))
        names[full] = avro
        ns = full.rsplit(".", 1)[0] if "." in full else None
        fields = []
        for f in avro.get("fields", []):
            cf = connect_schema(f["type"], names, ns)
            if "default" not in cf and f.get("default") is not None:
                cf["default"] = _default(cf, f["default"])
            cf["field"] = f["name"]
            fields.append(cf)
        out = {"type": "struct", "fields": fields}
        name = avro.get("connect.name") or (None if full == CONNECT_DEFAULT else full)
    elif t == "array":
        items = avro["items"]
        entry = names.get(_full(items, space)) if isinstance(items, str) else items
        if isinstance(entry, dict) and entry.get("type") == "record":
            full = _full(entry["name"], entry.get("namespace", space))
            if full == MAP_ENTRY or entry.get("name") == "MapEntry":
                names[full] = entry
                kv = {f["name"]: f["type"] for f in entry["fields"]}
                out = {
                    "type": "map",
                    "keys": connect_schema(kv["key"], names, space),
                    "values": connect_schema(kv["value"], names, space),
                }
        if not out:
            out = {"type": "array", "items": connect_schema(items, names, space)}
        name = avro.get("connect.name")
    elif t == "map":
        out = {"type": "map", "keys": {"type": "string", "optional": False}}
        out["values"] = connect_schema(avro["values"], names, space)
        name = avro.get("connect.name")
    elif t in _PRIMITIVE:
        if t in ("fixed", "enum"):
            names[_full(avro["name"], avro.get("namespace", space))] = avro
        ct = avro.get("connect.type") or _PRIMITIVE[t]
        out = {"type": ct}
        name = avro.get("connect.name") or _LOGICAL.get(avro.get("logicalType"))
        if avro.get("logicalType") == "decimal" and not name:
            name = DECIMAL
    else:
        raise AvroError(f"Avro type {t!r}")
    out["optional"] = optional
    if name:
        out["name"] = name
    if avro.get("connect.version") is not None:
        out["version"] = avro["connect.version"]
    if avro.get("connect.doc") or avro.get("doc"):
        out["doc"] = avro.get("connect.doc") or avro.get("doc")
    params = dict(avro.get("connect.parameters") or {})
    if name == DECIMAL and "scale" not in params:
        params["scale"] = str(avro.get("scale", 0))
        if avro.get("precision") is not None:
            params["connect.decimal.precision"] = str(avro["precision"])
    if params:
        out["parameters"] = params
    if avro.get("connect.default") is not None:
        out["default"] = _default(out, avro["connect.default"])
    return out


# -- Avro datum -> JsonConverter payload ---------------------------------------------------------------------


def _float(v: Any) -> Any:
    if v is None or math.isfinite(v):
        return v
    return "NaN" if v != v else "Infinity" if v > 0 else "-Infinity"


def _bytes(v: Any) -> Any:
    return None if v is None else base64.b64encode(v).decode()


def fixer(cs: dict) -> Callable[[Any], Any] | None:
    """A function turning the datum fastavro reads into JsonConverter's payload value, or None when the
    datum is that value already (no bytes, floats or maps with non-string keys inside)."""
    t = cs["type"]
    if t == "bytes":
        return _bytes
    if t in ("float", "double", "float32", "float64"):  # JsonConverter's names: float, double
        return _float
    if t == "struct":
        fs = [(f["field"], g) for f in cs.get("fields", []) if (g := fixer(f)) is not None]
        if not fs:
            return None

        def struct(v: Any) -> Any:
            if v is None:
                return None
            for k, g in fs:
                v[k] = g(v.get(k))
            return v

        return struct
    if t == "array":
        g = fixer(cs["items"])
        return None if g is None else (lambda v: None if v is None else [g(x) for x in v])
    if t == "map":
        kg, vg = fixer(cs["keys"]), fixer(cs["values"])
        if cs["keys"]["type"] != "string":  # an array of MapEntry records -> JsonConverter's pairs
            kf, vf = kg or (lambda x: x), vg or (lambda x: x)
            return lambda v: None if v is None else [[kf(e["key"]), vf(e["value"])] for e in v]
        if vg is None:
            return None
        return lambda v: None if v is None else {k: vg(x) for k, x in v.items()}
    return None


def _strip_logical(avro: Any) -> Any:
    """The schema without `logicalType`: fastavro then reads the physical values JsonConverter prints."""
    if isinstance(avro, list):
        return [_strip_logical(x) for x in avro]
    if isinstance(avro, dict):
        return {k: _strip_logical(v) for k, v in avro.items() if k != "logicalType"}
    return avro


class Compiled:
    """One writer schema: its Connect schema text and a reader of bodies into payload text."""

    def __init__(self, schema_text: str) -> None:
        import fastavro

        avro = orjson.loads(schema_text)
        cs = connect_schema(avro)
        self.schema = orjson.dumps(cs)
        self.parsed = fastavro.parse_schema(_strip_logical(avro), named_schemas={})
        self.fix = fixer(cs)
        self.reader = fastavro.schemaless_reader

    def payload(self, body: bytes) -> bytes:
        v = self.reader(io.BytesIO(body), self.parsed, None)
        if self.fix is not None:
            v = self.fix(v)
        return orjson.dumps(v)


class Registry:
    """Writer schemas by id: from a Confluent-compatible registry URL, or a `registry.json` file."""

    def __init__(self, url: str | None = None, file: str | None = None) -> None:
        self.url = url if url and not url.startswith("mock://") else None
        self.file = file
        self.texts: dict[int, str] = {}
        self.client = None
        self.file_mtime = None

    def _from_file(self) -> None:
        if not self.file or not os.path.exists(self.file):
            return
        m = os.stat(self.file).st_mtime_ns
        if m == self.file_mtime:
            return
        self.file_mtime = m
        with open(self.file, "rb") as f:
            dump = orjson.loads(f.read())
        for versions in dump.values():
            for v in versions:
                s = v["schema"]
                self.texts[int(v["id"])] = s if isinstance(s, str) else orjson.dumps(s).decode()

    def text(self, sid: int) -> str:
        if sid not in self.texts:
            if self.url:
                if self.client is None:
                    from confluent_kafka.schema_registry import SchemaRegistryClient

                    self.client = SchemaRegistryClient({"url": self.url.split(",")[0].strip()})
                try:
                    self.texts[sid] = self.client.get_schema(sid).schema_str
                except Exception as e:  # noqa: BLE001 - the registry's error, one line
                    raise AvroError(f"schema registry {self.url}: schema id {sid}: {e}") from None
            else:
                self._from_file()
                # the emulator appends records before it rewrites registry.json (at its next commit)
                deadline = time.monotonic() + FILE_WAIT_S
                while sid not in self.texts and time.monotonic() < deadline:
                    time.sleep(0.2)
                    self._from_file()
        if sid not in self.texts:
            where = self.url or self.file or "no registry"
            raise AvroError(f"Avro schema id {sid} is not in the schema registry ({where})")
        return self.texts[sid]


_CACHE: dict[tuple, tuple[Registry, dict[int, Compiled]]] = {}
_LOCK = threading.Lock()


class AvroDecoder:
    """Picklable (sent to executors with the reader); the registry and compiled schemas live per worker."""

    def __init__(self, url: str | None, file: str | None) -> None:
        self.key = (url, file)

    def _state(self) -> tuple[Registry, dict[int, Compiled]]:
        with _LOCK:
            st = _CACHE.get(self.key)
            if st is None:
                st = _CACHE[self.key] = (Registry(*self.key), {})
            return st

    def split(self, data: bytes) -> tuple[bytes, bytes]:
        """(Connect schema text, payload text) of one Confluent-framed Avro record."""
        sid = int.from_bytes(data[1:5], "big")
        reg, compiled = self._state()
        c = compiled.get(sid)
        if c is None:
            c = compiled[sid] = Compiled(reg.text(sid))
        return c.schema, c.payload(data[5:])
