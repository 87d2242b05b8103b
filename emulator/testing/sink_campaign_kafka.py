"""The sink campaign's Kafka input (`--input kafka`): the emulator produces to a Tansu broker (`--kafka`, its own
Kafka output's keys, values and headers) and the sink reads it (`--source kafka:HOST:PORT`).

Arrivals are the emulator's runs: each workload's stream is cut in two, the emulator stopped between the halves
(SIGTERM; it resumes from its offsets) and the sink run once there (`--once`, one checkpoint for the round), so
the sink meets topics that grow and appear between its runs; a last run reads the rest. The topics are dumped
to the workload's `out/` afterwards as directory-output lines with the records' headers (`{"key", "value",
"headers": [[name, value], ...]}`, a header's value as JSON where it is JSON, else its text: Connect's default
SimpleHeaderConverter writes `Values` text, a string with a raw tab is no JSON), for the record and the
comparison's checks (`header_problems`: every key change's `__debezium.oldkey`, in its converter's form)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from emulator.testing.tansu import list_topics, read_topic


class KafkaCounts:
    """Records per topic on the broker, read at most once a second (each read opens a consumer)."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self._at = 0.0
        self._counts: dict[str, int] = {}

    def __call__(self, topic: str) -> int:
        if time.monotonic() - self._at > 1.0:
            self._counts = {}
            self._at = time.monotonic()
        if topic not in self._counts:
            self._counts[topic] = len(read_topic(self.bootstrap, topic, timeout=20))
        return self._counts[topic]

    def fresh(self) -> None:
        self._at = 0.0


def dump_topics(bootstrap: str, prefix: str, out: Path) -> None:
    """The workload's topics (`prefix.`) as directory-output lines, in offset order per partition."""
    out.mkdir(parents=True, exist_ok=True)
    for topic in list_topics(bootstrap):
        if not topic.startswith(prefix + "."):
            continue
        with open(out / f"{topic}.jsonl", "w") as f:
            for m in read_topic(bootstrap, topic, timeout=30):
                key, value = m.key(), m.value()
                rec = {
                    "key": None if key is None else json.loads(key),
                    "value": None if value is None else json.loads(value),
                }
                if m.headers():
                    rec["headers"] = [[n, _header(h)] for n, h in m.headers()]
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")


def _header(h: bytes | None) -> Any:
    if h is None:
        return None
    try:
        return json.loads(h)
    except ValueError:
        return h.decode("utf-8", "replace")


def header_problems(out: Path, topic: str, changes: int, json_converter: bool) -> list[dict]:
    """A table's dump against the source: one `__debezium.oldkey` per key change (`changes`), each in the
    header converter's form (JsonConverter: the `{"schema", "payload"}` envelope; the default: the key's
    `Values` text, no envelope)."""
    olds = []
    path = out / f"{topic}.jsonl"
    for line in path.read_text().splitlines() if path.exists() else ():
        olds += [h for n, h in json.loads(line).get("headers") or () if n == "__debezium.oldkey"]
    enveloped = [
        isinstance(h, dict) and isinstance(h.get("schema"), dict) and "fields" in h["schema"] for h in olds
    ]
    if len(olds) == changes and all(e == json_converter for e in enveloped):
        return []
    return [
        {
            "table": topic,
            "what": "headers",
            "known": None,
            "want": f"{changes} __debezium.oldkey, {'JsonConverter' if json_converter else 'Values text'}",
            "got": [repr(h)[:200] for h in olds[:5]],
            "count": len(olds),
        }
    ]
