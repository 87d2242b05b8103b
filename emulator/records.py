"""The unit every output accepts: one Kafka record, already serialized."""

from __future__ import annotations

from typing import Any

import orjson


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
        parts = [b'{"key":', self.key if self.key is not None else b"null",
                 b',"value":', self.value if self.value is not None else b"null"]
        if self.headers:
            parts.append(b',"headers":[')
            parts.append(b",".join(b"[" + orjson.dumps(n) + b"," + h + b"]" for n, h in self.headers))
            parts.append(b"]")
        parts.append(b"}\n")
        return b"".join(parts)

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
