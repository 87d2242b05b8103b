"""A Kafka record's `__debezium.oldkey` header as the key's JsonConverter envelope, whatever its header converter.

With Connect's default SimpleHeaderConverter the header is `Values.convertToString` of the old key struct:
JSON-like (`{"id":30,"s":"x"}`) but not JSON. Its strings escape only `\\` and `"` (a tab or a newline stays
raw), a Decimal is the BigDecimal's text (`1.50`, where the key's payload has the unscaled bytes' base64), and
Kafka's Date/Time/Timestamp are bare ISO text (`2024-01-15`, `10:00:00.000Z`). Spliced into a line as it was,
such a header made the line no JSON (the batch failed, and every run after it), or its old key matched no key
(a key change's unchanged TOAST value was lost). It is read here by the key's own schema, which gives each
field's form, and rewritten as JsonConverter would have written it (`{"schema": ..., "payload": ...}`), the
form the directory output has. A header already in that form is kept; one that cannot be read is dropped
(no old key: as a record without the header)."""

from __future__ import annotations

import base64
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson

DECIMAL = "org.apache.kafka.connect.data.Decimal"
DATE = "org.apache.kafka.connect.data.Date"
TIME = "org.apache.kafka.connect.data.Time"
TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"
_DAY_MS = 86_400_000
_INTS = ("int8", "int16", "int32", "int64")


def oldkey_of(header: Any) -> Any:
    """The old key in a `__debezium.oldkey` header's value: JsonConverter's {"schema", "payload"} envelope (the
    directory output; Kafka with header.converter=JsonConverter), or the key struct's own text, which Connect's
    default SimpleHeaderConverter writes to Kafka (`{"id":30}`). A key whose fields are named `schema` and
    `payload` has the envelope's two names too (`{"schema":1,"payload":"a"}`): the envelope is told by its
    schema, a struct whose fields name the payload's keys in order (JsonConverter writes every field). No
    key column's value has that form: Debezium's structs (Point, Geometry, VariableScaleDecimal) have no
    `type`/`fields`, and a map's (hstore) values are strings, never a list."""
    if isinstance(header, dict) and header.keys() == {"schema", "payload"}:
        schema, payload = header["schema"], header["payload"]
        fields = schema.get("fields") if isinstance(schema, dict) and schema.get("type") == "struct" else None
        if (
            isinstance(fields, list)
            and isinstance(payload, dict)
            and [f.get("field") if isinstance(f, dict) else None for f in fields] == list(payload)
        ):
            return payload
    return header


def key_schema(key: bytes) -> dict | None:
    """The schema of a JsonConverter key's bytes (`{"schema": ..., "payload": ...}`), else None."""
    try:
        doc = orjson.loads(key)
    except orjson.JSONDecodeError:
        return None
    return doc.get("schema") if isinstance(doc, dict) else None


def oldkey_entry(h: bytes, kschema: bytes | dict | None) -> bytes | None:
    """The header entry's JSON (`{"schema": K, "payload": P}`) for the header bytes `h` of a record whose key
    schema (Connect's JSON form) is `kschema`; None when the header holds no old key this sink can read."""
    try:
        doc = orjson.loads(h)
    except orjson.JSONDecodeError:
        doc = None
    else:
        if oldkey_of(doc) is not doc:  # JsonConverter's envelope (header.converter=JsonConverter)
            return bytes(h)
    schema = orjson.loads(kschema) if isinstance(kschema, bytes) else kschema
    if not isinstance(schema, dict) or schema.get("type") != "struct":
        return None
    try:
        p = _Text(h.decode("utf-8"))
        payload = p.value(schema)
        if p.i != len(p.s):
            raise ValueError("text after the old key")
    except (ValueError, IndexError, InvalidOperation):
        return None
    return orjson.dumps({"schema": schema, "payload": payload})


class _Text:
    """`Values.append`'s text read back by a schema (the embedded forms: strings quoted)."""

    def __init__(self, s: str) -> None:
        self.s, self.i = s, 0

    def expect(self, tok: str) -> None:
        if not self.s.startswith(tok, self.i):
            raise ValueError(f"expected {tok!r} at {self.i}")
        self.i += len(tok)

    def bare(self, stop: str = ",}]:") -> str:
        j = self.i
        while j < len(self.s) and self.s[j] not in stop:
            j += 1
        tok, self.i = self.s[self.i : j], j
        if not tok:
            raise ValueError(f"empty value at {j}")
        return tok

    def quoted(self) -> str:
        self.expect('"')
        out, s = [], self.s
        while s[self.i] != '"':
            if s[self.i] == "\\":  # Values escapes `\` and `"` only
                self.i += 1
            out.append(s[self.i])
            self.i += 1
        self.i += 1
        return "".join(out)

    def value(self, schema: dict) -> Any:
        if self.s.startswith("null", self.i):
            self.i += 4
            return None
        typ, name = schema.get("type"), schema.get("name")
        if typ == "struct":
            self.expect("{")
            out = {}
            for n, f in enumerate(schema.get("fields") or ()):
                if n:
                    self.expect(",")
                self.expect(orjson.dumps(f["field"]).decode() + ":")
                out[f["field"]] = self.value(f)
            self.expect("}")
            return out
        if typ == "array":
            self.expect("[")
            items = []
            while not self.s.startswith("]", self.i):
                if items:
                    self.expect(",")
                items.append(self.value(schema["items"]))
            self.expect("]")
            return items
        if typ == "map":
            self.expect("{")
            pairs = []
            while not self.s.startswith("}", self.i):
                if pairs:
                    self.expect(",")
                k = self.value(schema["keys"])
                self.expect(":")
                pairs.append((k, self.value(schema["values"])))
            self.expect("}")
            return dict(pairs) if all(isinstance(k, str) for k, _ in pairs) else [list(p) for p in pairs]
        if typ == "string":
            return self.quoted()
        if typ == "bytes":
            if name == DECIMAL:  # BigDecimal's text; the payload is the unscaled value's bytes
                scale = int((schema.get("parameters") or {}).get("scale", 0))
                n = int(Decimal(self.bare()).scaleb(scale))
                raw = n.to_bytes(((n if n >= 0 else ~n).bit_length() // 8) + 1, "big", signed=True)
                return base64.b64encode(raw).decode()
            return self.quoted()  # base64, as the payload has it
        if typ == "boolean":
            tok = self.bare()
            if tok not in ("true", "false"):
                raise ValueError(f"not a boolean: {tok}")
            return tok == "true"
        if typ in _INTS:
            if name in (DATE, TIME, TIMESTAMP):
                return _millis(self.bare(",}]"), name)  # a time's `:` is part of the text
            return int(self.bare())
        if typ in ("float32", "float64", "float", "double"):
            tok = self.bare()
            return tok if tok in ("NaN", "Infinity", "-Infinity") else float(tok)
        raise ValueError(f"a key field of type {typ}")


def _millis(tok: str, name: str) -> int:
    """`Values.dateFormatFor`'s text back to the logical type's int: a time of day when the millis are within
    the first day, a date on a day boundary, else a timestamp; UTC, Java's Julian calendar before 1582-10-15
    (years of the era: a year before 1 AD is read as AD, the text does not tell)."""
    if tok.endswith("Z") and "T" not in tok:  # HH:MM:SS.mmmZ
        ms = _time_ms(tok[:-1])
    else:
        date, _, time = tok.partition("T")
        y, m, d = (int(x) for x in date.split("-"))
        ms = _epoch_day(y, m, d) * _DAY_MS + (_time_ms(time.rstrip("Z")) if time else 0)
    return ms // _DAY_MS if name == DATE else ms


def _time_ms(t: str) -> int:
    hms, _, frac = t.partition(".")
    h, mi, s = (int(x) for x in hms.split(":"))
    return ((h * 60 + mi) * 60 + s) * 1000 + int(frac or 0)


def _epoch_day(y: int, m: int, d: int) -> int:
    a = (14 - m) // 12
    yy, mm = y + 4800 - a, m + 12 * a - 3
    jdn = d + (153 * mm + 2) // 5 + 365 * yy + yy // 4
    jdn += yy // 400 - yy // 100 - 32045 if (y, m, d) >= (1582, 10, 15) else -32083
    return jdn - 2440588
