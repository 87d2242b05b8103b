"""The schema history (`schema.history.internal.file.filename`): every DDL the connector applied, with its
binlog position, as JSON lines in the shape of Debezium's FileSchemaHistory records:

    {"source": {"server": P}, "position": {...}, "ts_ms": ..., "databaseName": ..., "ddl": ...,
     "tableChanges": [{"type": "CREATE|ALTER|DROP", "id": "\\"db\\".\\"t\\"", "table": {...}}]}

On restart the records up to the stored offset rebuild the table model that was in force there, so binlog
events written before a later ALTER decode with the old columns. Records past the offset (written just
before a crash) are dropped: the stream reads those DDL statements again.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import orjson

from emulator.connectors.mysql.ddl import Catalog, DdlError, DdlParser, Table, parse_quoted_id

log = logging.getLogger("emulator.mysql.history")


def position_key(pos: dict[str, Any]) -> tuple[str, int]:
    return (str(pos.get("file") or ""), int(pos.get("pos") or 0))


class SchemaHistory:
    def __init__(self, path: str | None, server: str) -> None:
        self.path = Path(path) if path else None
        self.server = server
        self.memory: list[dict] = []

    def exists(self) -> bool:
        if self.path is None:
            return bool(self.memory)
        return self.path.exists() and self.path.stat().st_size > 0

    def records(self) -> list[dict]:
        if self.path is None:
            return list(self.memory)
        if not self.path.exists():
            return []
        out = []
        for n, line in enumerate(self.path.read_bytes().splitlines(), 1):
            if not line.strip():
                continue
            try:
                out.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                log.warning(
                    "schema history %s: line %d is not valid JSON (torn write?); ignored", self.path, n
                )
        return out

    def reset(self) -> None:
        self.memory = []
        if self.path is not None and self.path.exists():
            self.path.write_bytes(b"")

    def _write_all(self, records: list[dict]) -> None:
        if self.path is None:
            self.memory = list(records)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as f:
            for r in records:
                f.write(orjson.dumps(r) + b"\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def append(
        self, position: dict[str, Any], ts_ms: int, database: str, ddl: str, table_changes: list[dict]
    ) -> None:
        rec = {
            "source": {"server": self.server},
            "position": position,
            "ts_ms": ts_ms,
            "databaseName": database,
            "ddl": ddl,
            "tableChanges": table_changes,
        }
        if self.path is None:
            self.memory.append(rec)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as f:
            f.write(orjson.dumps(rec) + b"\n")
            f.flush()
            os.fsync(f.fileno())

    def recover(self, catalog: Catalog, upto: dict[str, Any] | None) -> int:
        """Apply the records before `upto` (an offset) to `catalog`; drop the later ones. -> records applied."""
        records = self.records()
        limit = position_key(upto) if upto else None
        parser = DdlParser(catalog)
        kept = []
        for rec in records:
            pos = rec.get("position") or {}
            if limit is not None and not pos.get("snapshot") and position_key(pos) >= limit:
                continue
            kept.append(rec)
            changes = rec.get("tableChanges") or []
            if changes:
                for tc in changes:
                    db, name = parse_quoted_id(tc["id"])
                    prev = tc.get("previousId")
                    if prev:
                        catalog.remove(*parse_quoted_id(prev))
                    if tc["type"] == "DROP":
                        catalog.remove(db, name)
                    elif tc.get("table") is not None:
                        catalog.put(Table.from_json(tc["id"], tc["table"]))
                continue
            ddl = rec.get("ddl") or ""
            head = ddl.lstrip().upper()
            if head.startswith("SET CHARACTER_SET_SERVER"):
                cs = ddl.split("=", 1)[1].split(",", 1)[0].strip()
                catalog.server_charset = cs
            elif head.startswith(
                (
                    "CREATE DATABASE",
                    "CREATE SCHEMA",
                    "DROP DATABASE",
                    "DROP SCHEMA",
                    "ALTER DATABASE",
                    "ALTER SCHEMA",
                )
            ):
                try:
                    parser.apply(ddl, rec.get("databaseName") or None)
                except DdlError:
                    pass
        if len(kept) != len(records):
            log.info("schema history: %d records past the restart position dropped", len(records) - len(kept))
            self._write_all(kept)
        return len(kept)
