"""A JsonConverter record split into what the sink needs, without parsing it (runs on executors, per record).

Key and value are `{"schema":S,"payload":P}` (JsonConverter, schemas enabled, compact). The schema text S is the
bulk of the bytes and the same for every record of a table version, so it is replaced by a fingerprint
(length and CRC-32 of its bytes), and its text is sent once per Spark partition; the payload text P is handed
to Spark's `from_json`. Records in any other form (whitespace, other field order) are parsed with orjson and
re-serialized to the same split.
"""

from __future__ import annotations

import base64
import zlib

import orjson
import pyarrow as pa

from sink.oldkey import oldkey_entry

SCHEMA = (
    "topic string, part string, pos long, kfp long, kschema string, kp string, "
    "vfp long, vschema string, vp string, hdr string"
)
ARROW = pa.schema(
    [
        ("topic", pa.string()),
        ("part", pa.string()),
        ("pos", pa.int64()),
        ("kfp", pa.int64()),
        ("kschema", pa.string()),
        ("kp", pa.string()),
        ("vfp", pa.int64()),
        ("vschema", pa.string()),
        ("vp", pa.string()),
        ("hdr", pa.string()),
    ]
)
BATCH_ROWS = 8192
_KEY = b'{"key":{"schema":'
_NOKEY = b'{"key":null,"value":'
_PAY = b',"payload":'
_VAL = b'},"value":'
_HDR = b'},"headers":['
# names that could make the byte search ambiguous: such records take the parsing path
_AMBIGUOUS = (b'"field":"value"', b'"field":"headers"', b'"payload"')


def fingerprint(schema: bytes) -> int:
    return (len(schema) << 32) | zlib.crc32(schema)


class Batcher:
    """Accumulates split records as columns; `flush` gives an Arrow RecordBatch."""

    def __init__(self, avro=None) -> None:
        self.avro = avro  # sink.avro.AvroDecoder: Confluent-framed Avro records (None: none expected)
        self.cols: list[list] = [[] for _ in ARROW]
        self.rows = 0
        self.known: dict[bytes, int] = {}  # schema bytes -> fingerprint, this partition
        self.sent: set[int] = set()  # fingerprints whose text went out in this partition
        self.last: tuple[bytes, int] | None = None

    def full(self) -> bool:
        return self.rows >= BATCH_ROWS

    def flush(self) -> pa.RecordBatch:
        rb = pa.RecordBatch.from_arrays([pa.array(c, f.type) for c, f in zip(self.cols, ARROW)], schema=ARROW)
        self.cols = [[] for _ in ARROW]
        self.rows = 0
        return rb

    def _fp(self, schema: bytes) -> tuple[int, str | None]:
        last = self.last
        if last is not None and last[0] == schema:
            return last[1], None
        fp = self.known.get(schema)
        if fp is None:
            fp = self.known[schema] = fingerprint(schema)
        self.last = (schema, fp)
        if fp in self.sent:
            return fp, None
        self.sent.add(fp)
        return fp, schema.decode()

    def _add(self, topic, part, pos, ks, kp, vs, vp, hdr) -> None:
        kfp = kst = vfp = vst = None
        if ks is not None:
            kfp, kst = self._fp(ks)
        if vs is not None:
            vfp, vst = self._fp(vs)
        row = (
            topic,
            part,
            pos,
            kfp,
            kst,
            None if kp is None else kp.decode(),
            vfp,
            vst,
            None if vp is None else vp.decode(),
            None if hdr is None else hdr.decode(),
        )
        for c, v in zip(self.cols, row):
            c.append(v)
        self.rows += 1

    def add_line(self, topic: str, part: str, pos: int, line: bytes) -> None:
        """A directory-output line `{"key":K,"value":V[,"headers":[...]]}`."""
        split = split_line(line)
        if split is None:
            try:
                split = _parse_line(line, self._binary)
            except ValueError as e:  # orjson's JSONDecodeError too; names where, for the one-line error
                raise ValueError(f"{part} at byte {pos}: not a Debezium record ({e})") from None
        self._add(topic, part, pos, *split)

    def _binary(self, data: bytes) -> tuple[bytes | None, bytes | None]:
        """A converter's bytes that are not JSON text: Confluent-framed Avro, through the registry."""
        from sink.avro import is_avro

        if not is_avro(data):
            raise ValueError("a record's key or value is binary but not Avro in Confluent's wire format")
        if self.avro is None:
            raise ValueError(
                "Avro records (Confluent wire format) need the schema registry: --schema-registry-url "
                "(schema.registry.url), or registry.json beside the directory output's files"
            )
        return self.avro.split(data)

    def add_record(self, topic: str, part: str, pos: int, key, value, headers) -> None:
        """A Kafka record's key and value bytes; only the `__debezium.oldkey` header is kept."""
        ks, kp = self._binary(key) if key is not None and key[:1] == b"\x00" else _split_doc(key)
        vs, vp = self._binary(value) if value is not None and value[:1] == b"\x00" else _split_doc(value)
        hdr = None
        for name, h in headers or ():
            if name == "__debezium.oldkey" and h and h[:1] == b"{":
                entry = oldkey_entry(h, ks)  # as JsonConverter writes it, whatever the header converter
                if entry is not None:
                    hdr = b'[["__debezium.oldkey",' + entry + b"]]"
        self._add(topic, part, pos, ks, kp, vs, vp, hdr)


def _split_doc(doc: bytes | None) -> tuple[bytes | None, bytes | None]:
    if doc is None:
        return None, None
    if doc.startswith(b'{"schema":'):
        j = doc.find(_PAY, 10)
        if j > 0 and doc.endswith(b"}") and _AMBIGUOUS[2] not in doc[10:j]:
            return doc[10:j], doc[j + len(_PAY) : -1]
    d = orjson.loads(doc)
    if isinstance(d, dict) and "schema" in d and "payload" in d:
        return orjson.dumps(d["schema"]), orjson.dumps(d["payload"])
    return None, orjson.dumps(d)  # schemaless: no schema to decode by


def _doc(v, binary) -> tuple[bytes | None, bytes | None]:
    """A key or value of a directory-output line: JSON, or `{"b64": ...}` (a converter's binary bytes)."""
    if v is None:
        return None, None
    if isinstance(v, dict) and len(v) == 1 and isinstance(v.get("b64"), str) and binary is not None:
        return binary(base64.b64decode(v["b64"]))
    return _split_doc(orjson.dumps(v))


def split_line(line: bytes):
    """(kschema, kpayload, vschema, vpayload, headers) by byte search, or None when unsure."""
    if line.startswith(_KEY):
        j = line.find(_PAY, len(_KEY))
        if j < 0:
            return None
        ks = line[len(_KEY) : j]
        v = line.find(_VAL, j)
        if v < 0 or _AMBIGUOUS[0] in ks or _AMBIGUOUS[2] in ks:
            return None
        kp = line[j + len(_PAY) : v]
        at = v + len(_VAL)
    elif line.startswith(_NOKEY):
        ks = kp = None
        at = len(_NOKEY)
    else:
        return None
    end = len(line)
    while end and line[end - 1] in b" \r\t":
        end -= 1
    if line.startswith(b"null", at):
        rest = line[at + 4 : end]
        if rest == b"}":
            return ks, kp, None, None, None
        if rest.startswith(b',"headers":[') and rest.endswith(b"]}"):
            return ks, kp, None, None, rest[11:-1]
        return None
    if not line.startswith(b'{"schema":', at):
        return None
    j = line.find(_PAY, at + 10)
    if j < 0:
        return None
    vs = line[at + 10 : j]
    if _AMBIGUOUS[1] in vs or _AMBIGUOUS[2] in vs:
        return None
    h = line.rfind(_HDR, j)
    if h >= 0:
        if line[end - 1 : end] != b"}":
            return None
        return ks, kp, vs, line[j + len(_PAY) : h], line[h + len(_HDR) - 1 : end - 1]
    if line[end - 2 : end] != b"}}":
        return None
    return ks, kp, vs, line[j + len(_PAY) : end - 2], None


def _parse_line(line: bytes, binary=None):
    d = orjson.loads(line)
    if not (isinstance(d, dict) and "key" in d and "value" in d):
        raise ValueError('expected the directory output\'s {"key": ..., "value": ...}')
    ks, kp = _doc(d.get("key"), binary)
    vs, vp = _doc(d.get("value"), binary)
    h = d.get("headers")
    return ks, kp, vs, vp, None if not h else orjson.dumps(h)
