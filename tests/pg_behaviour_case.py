"""The PostgreSQL behaviour tests' shared parts (tests/test_pg_behaviour*.py): a test's `Case` (its own
schema, slot, publication and topic prefix on the module's server) and helpers that read records.

Each test module defines its `pg` (module scope) and `case` fixtures from `behaviour_server()` and
`open_case()`; see tests/test_pg_behaviour.py's docstring for how absence is checked with a barrier.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from emulator.api import Capture
from emulator.testing.pgserver import PgServer

PLACEHOLDER = "__debezium_unavailable_value"

# -- the server, a test's Case, the record helpers --------------------------------------------------------


def behaviour_server() -> Iterator[PgServer]:
    """One server per test module; hstore for the handling-mode tests."""
    with PgServer() as server:
        server.psql("CREATE EXTENSION hstore;")
        yield server


_tokens = itertools.count(1)


class Case:
    """One test's private corner of the server: schema `name` (with a `barrier` table), slot
    `name`, publication `name_pub`, topic prefix `name`."""

    def __init__(self, pg: PgServer, name: str) -> None:
        self.pg = pg
        self.name = self.schema = self.prefix = self.slot = name
        self.publication = f"{name}_pub"
        self.caps: list[Capture] = []
        self.sql(f"CREATE SCHEMA {name}; CREATE TABLE {name}.barrier (id int PRIMARY KEY);")

    def sql(self, text: str) -> None:
        self.pg.psql(text)

    def props(self, extra: dict[str, str | None] | None = None) -> dict[str, str]:
        """Base properties plus `extra` (a None value removes the property)."""
        props = self.pg.connector_properties(
            **{
                "topic.prefix": self.prefix,
                "slot.name": self.slot,
                "publication.name": self.publication,
                "schema.include.list": self.schema,
                "offset.flush.interval.ms": "200",
            }
        )
        for k, v in (extra or {}).items():
            if v is None:
                props.pop(k, None)
            else:
                props[k] = v
        return props

    def start(self, extra: dict[str, str | None] | None = None) -> Capture:
        """A running capture whose slot exists, so every later commit is captured."""
        cap = Capture(self.props(extra)).start()
        self.caps.append(cap)
        deadline = time.monotonic() + 30
        while not self.slot_exists():
            if cap.error is not None:
                raise AssertionError(f"capture failed at start: {cap.error!r}")
            if time.monotonic() > deadline:
                raise AssertionError(f"slot {self.slot} never appeared")
            time.sleep(0.05)
        return cap

    def slot_exists(self) -> bool:
        with self.pg.connect() as c:
            return (
                c.execute("SELECT 1 FROM pg_replication_slots WHERE slot_name = %s", (self.slot,)).fetchone()
                is not None
            )

    def topic(self, table: str) -> str:
        return f"{self.prefix}.{self.schema}.{table}"

    def barrier(self, cap: Capture, timeout: float = 20) -> None:
        token = next(_tokens)
        self.sql(f"INSERT INTO {self.schema}.barrier VALUES ({token});")
        cap.wait_for(self.topic("barrier"), lambda r: key(r) == {"id": token}, timeout)

    def close(self) -> None:
        for cap in self.caps:
            cap.stop()
        with self.pg.connect() as c:
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                row = c.execute(
                    "SELECT active FROM pg_replication_slots WHERE slot_name = %s", (self.slot,)
                ).fetchone()
                if row is None:
                    break
                if not row[0]:
                    c.execute("SELECT pg_drop_replication_slot(%s)", (self.slot,))
                    break
                time.sleep(0.1)


def open_case(pg: PgServer, request: pytest.FixtureRequest) -> Iterator[Case]:
    """The test's Case, named after the test; its captures stopped and its slot dropped afterwards."""
    name = re.sub(r"[^a-z0-9]+", "_", request.node.name.lower()).strip("_")
    name = re.sub(r"^test_", "", name)[:40].rstrip("_")
    c = Case(pg, name)
    yield c
    c.close()


def key(r: dict) -> Any:
    k = r.get("key")
    return k["payload"] if isinstance(k, dict) and "payload" in k else k


def payload(r: dict) -> dict | None:
    v = r.get("value")
    return v["payload"] if isinstance(v, dict) and "payload" in v else v


def op(r: dict) -> str | None:
    p = payload(r)
    return p.get("op") if isinstance(p, dict) else None


def header(r: dict, name: str) -> Any:
    for n, h in r.get("headers") or []:
        if n == name:
            return h["payload"] if isinstance(h, dict) and "payload" in h else h
    return None


def on(cap: Capture, topic: str) -> list[dict]:
    return [r for r in cap.seen if r["topic"] == topic]


def data_events(cap: Capture, topic: str) -> list[dict]:
    return [r for r in on(cap, topic) if r.get("value") is not None]


def field_schema(r: dict, part: str, name: str) -> dict | None:
    """The Connect schema of field `name` inside the value's `before`/`after` struct."""
    env = r["value"]["schema"]
    struct = next(f for f in env["fields"] if f["field"] == part)
    return next((f for f in struct["fields"] if f["field"] == name), None)


def is_op(kind: str, **after_match: Any):
    def pred(r: dict) -> bool:
        p = payload(r)
        if not isinstance(p, dict) or p.get("op") != kind:
            return False
        row = p.get("after") if kind != "d" else p.get("before")
        return all((row or {}).get(k) == v for k, v in after_match.items())

    return pred
