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
from emulator.statefiles import StateFileError, open_private, write_atomic

log = logging.getLogger("emulator.mysql.history")


def _record_problem(rec: Any) -> str | None:
    """What makes `rec` something other than a schema history record (as this module writes them)."""
    if not isinstance(rec, dict):
        return "not a JSON object"
    if not isinstance(rec.get("position"), dict):
        return "'position' is not an object"
    if not isinstance(rec.get("ddl", ""), str) or not isinstance(rec.get("databaseName", ""), str | None):
        return "'ddl' / 'databaseName' are not strings"
    changes = rec.get("tableChanges") or []
    if not isinstance(changes, list):
        return "'tableChanges' is not an array"
    for tc in changes:
        if (
            not isinstance(tc, dict)
            or not isinstance(tc.get("id"), str)
            or not isinstance(tc.get("type"), str)
        ):
            return "a table change has no 'id' and 'type'"
        if tc.get("table") is not None and not isinstance(tc["table"], dict):
            return "a table change's 'table' is not an object"
    try:
        position_key(rec["position"])
    except (TypeError, ValueError):
        return "'position' has no binlog file and position"
    return None


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
        """The stored records. A last line cut by a crash in the middle of an append is dropped from the
        file (the next append would otherwise be glued to it); any other line that is not a history
        record is a StateFileError naming the file (exit 2) - never a silently shorter history."""
        if self.path is None:
            return list(self.memory)
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        out = []
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                if n == len(lines):  # no newline after it: a torn append
                    log.warning("schema history %s: line %d was cut by a crash; dropped", self.path, n)
                    with open(self.path, "r+b") as f:
                        f.truncate(len(data) - len(line))
                        f.flush()
                        os.fsync(f.fileno())
                    break
                raise StateFileError(self.path, f"schema history line {n} is not valid JSON") from None
            problem = _record_problem(rec)
            if problem:
                raise StateFileError(self.path, f"schema history line {n}: {problem}")
            out.append(rec)
        return out

    def reset(self) -> None:
        self.memory = []
        if self.path is not None and self.path.exists():
            self.path.write_bytes(b"")

    def _write_all(self, records: list[dict]) -> None:
        if self.path is None:
            self.memory = list(records)
            return
        write_atomic(self.path, b"".join(orjson.dumps(r) + b"\n" for r in records))

    def append(
        self, position: dict[str, Any], ts_ms: int, database: str, ddl: str | None, table_changes: list[dict]
    ) -> None:
        """`ddl` None: a table read over JDBC (an incremental snapshot's), which Debezium's HistoryRecord
        writes without a `ddl`."""
        rec = {
            "source": {"server": self.server},
            "position": position,
            "ts_ms": ts_ms,
            "databaseName": database,
            "ddl": ddl,
            "tableChanges": table_changes,
        }
        if ddl is None:
            del rec["ddl"]
        if self.path is None:
            self.memory.append(rec)
            return
        with open_private(self.path, "ab") as f:  # created owner-only
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
                    try:
                        db, name = parse_quoted_id(tc["id"])
                    except (TypeError, ValueError):
                        raise StateFileError(
                            self.path or "schema history", f"bad table id {tc['id']!r}"
                        ) from None
                    prev = tc.get("previousId")
                    if prev:
                        catalog.remove(*parse_quoted_id(prev))
                    if tc["type"] == "DROP":
                        catalog.remove(db, name)
                    elif tc.get("table") is not None:
                        try:
                            catalog.put(Table.from_json(tc["id"], tc["table"]))
                        except (KeyError, TypeError, ValueError, AttributeError) as e:
                            raise StateFileError(
                                self.path or "schema history", f"table {tc['id']} cannot be read back ({e!r})"
                            ) from None
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
