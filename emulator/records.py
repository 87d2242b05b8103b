"""The unit every output accepts: one Kafka record, already serialized.

Two specialised forms exist only when Kafka Connect's data plane runs (transforms or non-default converters,
`emulator/connect/dataplane.py`): `StructuredRecord`, what a table envelope hands the data plane (the schemas
and JSON-ready payloads, no bytes made), and `ConvertedRecord`, what the data plane hands the outputs (the
converters' bytes, with which of them are JSON text already known)."""

from __future__ import annotations

from typing import Any

import orjson

try:  # SIMD base64, same bytes: an Avro record's directory line is mostly the base64 of its value
    from pybase64 import b64encode
except ImportError:  # pragma: no cover - the standard library's (5x the CPU for a 1 KB value)
    from base64 import b64encode

_HEADERS: dict[int, tuple[list, bytes]] = {}


def headers_json(headers: list[tuple[str, bytes]]) -> bytes:
    return b',"headers":[' + b",".join(b"[" + orjson.dumps(n) + b"," + h + b"]" for n, h in headers) + b"]}\n"


def json_or_b64(raw: bytes | None) -> bytes:
    """Converter bytes as they stand in a line: UTF-8 JSON text verbatim, anything else (Avro, a bare
    `StringConverter` text) as `{"b64": "..."}`, None as `null`."""
    if raw is None:
        return b"null"
    if raw[:1] == b"\x00":  # Confluent's magic byte (Avro): never JSON text, spare the failed parse
        return b'{"b64":"' + b64encode(raw) + b'"}'
    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    else:
        if raw and raw.strip() == raw:
            return raw
    return b'{"b64":"' + b64encode(raw) + b'"}'


class Record:
    """`key`/`value` are the converters' bytes or None (tombstone / keyless table); `headers` is a list
    of (name, header converter bytes). With the default converters every one of them is JSON text;
    `binary` is True when a converter may have produced other bytes (lines then check each).
    `partition` is the Kafka partition a transform chose, else None (the producer's partitioner)."""

    __slots__ = ("topic", "key", "value", "headers", "partition", "binary")

    def __init__(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        headers: list[tuple[str, bytes]] | None = None,
        partition: int | None = None,
        binary: bool = False,
    ) -> None:
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
        self.partition = partition
        self.binary = binary

    def line(self) -> bytes:
        """The directory output's line: `{"key":K,"value":V,"headers":[[name,H],...]}` + newline."""
        if self.binary or self.partition is not None:
            return self._line_general()
        headers = self.headers
        if headers:
            cached = _HEADERS.get(id(headers))
            if cached is not None and cached[0] is headers:
                tail = cached[1]
            else:
                tail = headers_json(headers)
                if len(_HEADERS) < 64:  # shared lists (context headers) are the ones worth keeping
                    _HEADERS[id(headers)] = (headers, tail)
        else:
            tail = b"}\n"
        return b"".join(
            (
                b'{"key":',
                b"null" if self.key is None else self.key,
                b',"value":',
                b"null" if self.value is None else self.value,
                tail,
            )
        )

    def _line_general(self) -> bytes:
        parts = [b'{"key":', json_or_b64(self.key), b',"value":', json_or_b64(self.value)]
        if self.headers:
            parts.append(
                b',"headers":['
                + b",".join(b"[" + orjson.dumps(n) + b"," + json_or_b64(h) + b"]" for n, h in self.headers)
                + b"]"
            )
        if self.partition is not None:
            parts.append(b',"partition":' + str(self.partition).encode())
        parts.append(b"}\n")
        return b"".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """Parsed form (topic, key, value, headers) as the golden recordings hold it."""
        if self.binary:
            load = _load_any
        else:

            def load(b: bytes | None) -> Any:
                return orjson.loads(b) if b is not None else None

        d: dict[str, Any] = {"topic": self.topic, "key": load(self.key), "value": load(self.value)}
        if self.headers:
            d["headers"] = [[n, load(h)] for n, h in self.headers]
        if self.partition is not None:
            d["partition"] = self.partition
        return d

    def __repr__(self) -> str:
        return f"Record({self.topic!r}, key={self.key!r:.80}, value={self.value!r:.120})"


class StructuredRecord(Record):
    """A record still in its parts: the key and value schemas (`emulator.connect.schema.Schema`) and their
    JSON-ready payloads (what JsonConverter prints: decimals and bytes as base64 text, ...), so that the data
    plane builds Connect values without parsing JSON. `key` / `value` bytes (JsonConverter with schemas, the
    connector's internal form) are made only if something reads them; `frames` are the (key, value) `Framed`
    encoders that make them."""

    __slots__ = ("key_schema", "key_payload", "value_schema", "value_payload", "frames")

    def __init__(
        self,
        topic: str,
        key_schema: Any,
        key_payload: Any,
        value_schema: Any,
        value_payload: Any,
        headers: list[tuple[str, bytes]] | None,
        frames: tuple[Any, Any],
    ) -> None:
        self.topic = topic
        self.key_schema = key_schema
        self.key_payload = key_payload
        self.value_schema = value_schema
        self.value_payload = value_payload
        self.headers = headers
        self.frames = frames
        self.partition = None
        self.binary = False

    @property
    def key(self) -> bytes | None:  # type: ignore[override]
        return None if self.key_payload is None else self.frames[0].encode(self.key_payload)

    @property
    def value(self) -> bytes | None:  # type: ignore[override]
        return None if self.value_payload is None else self.frames[1].encode(self.value_payload)


_CONVERTED_HEADERS: dict[int, tuple[list, bytes]] = {}


class ConvertedRecord(Record):
    """The converters' bytes (`binary=True`: not necessarily JSON). `verbatim` has a bit per part whose
    converter always writes JSON text (1 key, 2 value, 4 headers): the directory line copies those as they
    are instead of checking them; 8: the headers are the default JsonConverter form (no header.converter
    named), which the Kafka output turns into Kafka Connect's default SimpleHeaderConverter bytes."""

    __slots__ = ("verbatim",)

    def __init__(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        headers: list[tuple[str, bytes | None]] | None,
        partition: int | None,
        verbatim: int,
    ) -> None:
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
        self.partition = partition
        self.binary = True
        self.verbatim = verbatim

    def line(self) -> bytes:
        m = self.verbatim
        k, v = self.key, self.value
        parts = [
            b'{"key":',
            (b"null" if k is None else k) if m & 1 else json_or_b64(k),
            b',"value":',
            (b"null" if v is None else v) if m & 2 else json_or_b64(v),
        ]
        headers = self.headers
        if headers:
            cached = _CONVERTED_HEADERS.get(id(headers))
            if cached is not None and cached[0] is headers:
                parts.append(cached[1])
            else:
                if m & 4:
                    tail = b",".join(
                        b"[" + orjson.dumps(n) + b"," + (b"null" if h is None else h) + b"]"
                        for n, h in headers
                    )
                else:
                    tail = b",".join(
                        b"[" + orjson.dumps(n) + b"," + json_or_b64(h) + b"]" for n, h in headers
                    )
                tail = b',"headers":[' + tail + b"]"
                if len(_CONVERTED_HEADERS) >= 64:  # the shared (converted context) lists are the hits
                    _CONVERTED_HEADERS.clear()
                _CONVERTED_HEADERS[id(headers)] = (headers, tail)
                parts.append(tail)
        if self.partition is not None:
            parts.append(b',"partition":' + str(self.partition).encode())
        parts.append(b"}\n")
        return b"".join(parts)


def _load_any(raw: bytes | None) -> Any:
    return orjson.loads(json_or_b64(raw)) if raw is not None else None
