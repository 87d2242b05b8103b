"""Schema registries for the AvroConverter: Confluent's `MockSchemaRegistry` scopes (`mock://SCOPE`) in
process, and real registries through `confluent-kafka`'s `SchemaRegistryClient`.

The mock assigns ids as Confluent's `MockSchemaRegistryClient` (7.x) does: one counter per scope starting
at 1; a schema already registered under any subject of the scope keeps its id; each subject numbers its
versions from 1; registering a subject's existing schema again returns its id without a new version.
"""

from __future__ import annotations

import threading
from typing import Any

import orjson

from emulator.connect.converters.errors import ConversionError


class MockRegistry:
    def __init__(self, scope: str) -> None:
        self.scope = scope
        self.lock = threading.Lock()
        self.ids: dict[str, int] = {}  # schema text -> id
        self.subjects: dict[str, list[tuple[int, int, str]]] = {}  # subject -> [(version, id, text)]
        self.changed = False

    def register(self, subject: str, text: str) -> int:
        with self.lock:
            versions = self.subjects.setdefault(subject, [])
            for _v, sid, t in versions:
                if t == text:
                    return sid
            sid = self.ids.get(text)
            if sid is None:
                sid = len(self.ids) + 1
                self.ids[text] = sid
            versions.append((len(versions) + 1, sid, text))
            self.changed = True
            return sid

    def lookup(self, subject: str, text: str) -> int:
        with self.lock:
            for _v, sid, t in self.subjects.get(subject, ()):
                if t == text:
                    return sid
        raise ConversionError(f"Schema not found in subject {subject!r} (auto.register.schemas=false)")

    def latest(self, subject: str) -> tuple[int, str]:
        with self.lock:
            versions = self.subjects.get(subject)
            if not versions:
                raise ConversionError(f"Subject {subject!r} not found (use.latest.version=true)")
            _v, sid, text = versions[-1]
            return sid, text

    def dump(self) -> dict[str, list[dict[str, Any]]]:
        with self.lock:
            return {
                s: [{"version": v, "id": i, "schema": orjson.loads(t)} for v, i, t in vs]
                for s, vs in sorted(self.subjects.items())
            }


_SCOPES: dict[str, MockRegistry] = {}
_SCOPES_LOCK = threading.Lock()


def mock_scope(scope: str) -> MockRegistry:
    """`MockSchemaRegistry.getClientForScope(scope)`: one registry per scope per process."""
    with _SCOPES_LOCK:
        reg = _SCOPES.get(scope)
        if reg is None:
            reg = _SCOPES[scope] = MockRegistry(scope)
        return reg


def mock_scopes() -> list[MockRegistry]:
    with _SCOPES_LOCK:
        return list(_SCOPES.values())


def mock_dump() -> dict[str, list[dict[str, Any]]] | None:
    """Every mock scope's subjects (one scope expected), or None when no mock registry is used."""
    regs = mock_scopes()
    if not regs:
        return None
    out: dict[str, list[dict[str, Any]]] = {}
    for reg in regs:
        out.update(reg.dump())
    return out


class RealRegistry:
    """A Confluent-compatible registry at `urls` via confluent-kafka's client (ids cached per text)."""

    def __init__(self, urls: str, conf: dict[str, str]) -> None:
        from confluent_kafka.schema_registry import SchemaRegistryClient

        client_conf = {"url": urls.split(",")[0].strip()}
        client_conf.update(conf)
        self.client = SchemaRegistryClient(client_conf)
        self._ids: dict[tuple[str, str], int] = {}

    def register(self, subject: str, text: str) -> int:
        from confluent_kafka.schema_registry import Schema

        hit = self._ids.get((subject, text))
        if hit is None:
            try:
                hit = self.client.register_schema(subject, Schema(text, "AVRO"))
            except Exception as e:  # noqa: BLE001 - the registry's error, one line
                raise ConversionError(f"schema registry: cannot register {subject!r}: {e}") from None
            self._ids[(subject, text)] = hit
        return hit

    def lookup(self, subject: str, text: str) -> int:
        from confluent_kafka.schema_registry import Schema

        hit = self._ids.get((subject, text))
        if hit is None:
            try:
                hit = self.client.lookup_schema(subject, Schema(text, "AVRO")).schema_id
            except Exception as e:  # noqa: BLE001
                raise ConversionError(f"schema registry: schema not found in {subject!r}: {e}") from None
            self._ids[(subject, text)] = hit
        return hit

    def latest(self, subject: str) -> tuple[int, str]:
        try:
            reg = self.client.get_latest_version(subject)
        except Exception as e:  # noqa: BLE001
            raise ConversionError(f"schema registry: no latest version of {subject!r}: {e}") from None
        return reg.schema_id, reg.schema.schema_str
