"""The sink campaign's Kafka input (`--input kafka`): the emulator produces to a Tansu broker (`--kafka`, its own
Kafka output's keys, values and headers) and the sink reads it (`--source kafka:HOST:PORT`).

Arrivals are the emulator's runs: each workload's stream is cut in two, the emulator stopped between the halves
(SIGTERM; it resumes from its offsets) and the sink run once there (`--once`, one checkpoint for the round), so
the sink meets topics that grow and appear between its runs; a last run reads the rest. The topics are dumped
to the workload's `out/` afterwards (`{"key", "value"}` lines), for the record and the comparison's checks."""

from __future__ import annotations

import json
import time
from pathlib import Path

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
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
