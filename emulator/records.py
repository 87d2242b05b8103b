"""The unit every output accepts: one Kafka record, already serialized."""

from __future__ import annotations

from typing import Any

import orjson

_HEADERS: dict[int, tuple[list, bytes]] = {}


def headers_json(headers: list[tuple[str, bytes]]) -> bytes:
    return (b',"headers":[' + b",".join(b"[" + orjson.dumps(n) + b"," + h + b"]" for n, h in headers)
            + b"]}\n")


class Record:
    """`key`/`value` are JsonConverter bytes or None (tombstone / keyless table); `headers` is a list
    of (name, JsonConverter bytes of the header value)."""

    __slots__ = ("topic", "key", "value", "headers")

    def __init__(self, topic: str, key: bytes | None, value: bytes | None,
                 headers: list[tuple[str, bytes]] | None = None) -> None:
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers

    def line(self) -> bytes:
        """The directory output's line: `{"key":K,"value":V,"headers":[[name,H],...]}` + newline."""
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

    def to_dict(self) -> dict[str, Any]:
        """Parsed form (topic, key, value, headers) as the golden recordings hold it."""
        d: dict[str, Any] = {
            "topic": self.topic,
            "key": orjson.loads(self.key) if self.key is not None else None,
            "value": orjson.loads(self.value) if self.value is not None else None,
        }
        if self.headers:
            d["headers"] = [[n, orjson.loads(h)] for n, h in self.headers]
        return d

    def __repr__(self) -> str:
        return f"Record({self.topic!r}, key={self.key!r:.80}, value={self.value!r:.120})"
