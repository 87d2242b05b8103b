"""The unit every output accepts: one Kafka record, already serialized."""

from __future__ import annotations

import base64
from typing import Any

import orjson

_HEADERS: dict[int, tuple[list, bytes]] = {}


def headers_json(headers: list[tuple[str, bytes]]) -> bytes:
    return (b',"headers":[' + b",".join(b"[" + orjson.dumps(n) + b"," + h + b"]" for n, h in headers)
            + b"]}\n")


def json_or_b64(raw: bytes | None) -> bytes:
    """Converter bytes as they stand in a line: UTF-8 JSON text verbatim, anything else (Avro, a bare
    `StringConverter` text) as `{"b64": "..."}`, None as `null`."""
    if raw is None:
        return b"null"
    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    else:
        if raw and raw.strip() == raw:
            return raw
    return b'{"b64":"' + base64.b64encode(raw) + b'"}'


class Record:
    """`key`/`value` are the converters' bytes or None (tombstone / keyless table); `headers` is a list
    of (name, header converter bytes). With the default converters every one of them is JSON text;
    `binary` is True when a converter may have produced other bytes (lines then check each).
    `partition` is the Kafka partition a transform chose, else None (the producer's partitioner)."""

    __slots__ = ("topic", "key", "value", "headers", "partition", "binary")

    def __init__(self, topic: str, key: bytes | None, value: bytes | None,
                 headers: list[tuple[str, bytes]] | None = None, partition: int | None = None,
                 binary: bool = False) -> None:
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
        return b"".join((b'{"key":', b"null" if self.key is None else self.key, b',"value":',
                         b"null" if self.value is None else self.value, tail))

    def _line_general(self) -> bytes:
        parts = [b'{"key":', json_or_b64(self.key), b',"value":', json_or_b64(self.value)]
        if self.headers:
            parts.append(b',"headers":[' + b",".join(b"[" + orjson.dumps(n) + b"," + json_or_b64(h) + b"]"
                                                    for n, h in self.headers) + b"]")
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


def _load_any(raw: bytes | None) -> Any:
    return orjson.loads(json_or_b64(raw)) if raw is not None else None
