"""The MySQL connector's schema changes: QUERY events parsed as DDL, applied to the table model,
written to the schema history and emitted as schema-change events (and TRUNCATE).

A mixin of MySqlConnector; the module functions build the history and event payloads the snapshot
uses too."""

from __future__ import annotations

import logging
import re
import struct
from typing import Any

from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql.ddl import Change, DdlError
from emulator.connectors.mysql.ddl_model import dq_id
from emulator.connectors.mysql.source import source_block
from emulator.javahash import string_hash, table_size

_thread = struct.Struct("<I").unpack_from  # a QUERY event's thread id, the post-header's first field
_DML = re.compile(r"(?is)^\s*(INSERT|UPDATE|DELETE|REPLACE)\b")

log = logging.getLogger("emulator.mysql")


class MySqlSchemaChanges:
    """The MySQL connector's schema changes: QUERY events parsed as DDL, applied to the table model,"""

    def _on_query(self, data: bytes, ev, checksum: int) -> None:
        if ev is None:  # BEGIN or COMMIT, read from the packet (BinlogReader.read: no library event)
            self.event_server_id = self._sid
            if data[bl.query_text_start(data)] == 66:  # B
                self._on_begin(_thread(data, 20)[0])
            else:
                self._on_commit("COMMIT")
            return
        sql = ev.query.strip()
        upper = sql[:16].upper()
        db = ev.schema.decode("utf-8", "replace") if isinstance(ev.schema, bytes) else (ev.schema or "")
        self.event_server_id = self._sid
        if upper == "BEGIN" or upper.startswith("XA START"):
            self._on_begin(ev.slave_proxy_id)
            return
        if upper in ("COMMIT", "ROLLBACK") or upper.startswith("XA "):
            self._on_commit(upper)
            return
        if _DML.match(sql):
            log.warning("statement-based binlog event ignored (binlog_format must be ROW): %.200s", sql)
            return
        try:
            changes = self.parser.apply(sql, db or None)
        except DdlError as e:
            if not self.skip_unparseable:
                raise DdlError(
                    f"{e} at {self.file}:{self._start}; set "
                    "schema.history.internal.skip.unparseable.ddl=true to skip it"
                ) from None
            log.warning("skipping unparseable DDL at %s:%s: %r", self.file, self._start, sql)
            # BinlogDatabaseSchema.parseDdl: no parser event, so the statement goes out (and into the history) as
            # a bare schema change of the event's database, as read (recorded: case ansi_quotes_literal_positions)
            changes = [Change("OTHER", db, sql)]
        self._apply_changes(changes, db)
        if self.in_tx and self.tx_standalone:
            self._complete()
        elif not self.in_tx:
            self.next_pos = self._next

    def _on_begin(self, thread: int) -> None:
        """A QUERY `BEGIN` (or `XA START`) of the session `thread`."""
        if self.flavor.mariadb:
            if not self.in_tx:  # no GTID event before it (a server without GTIDs)
                self._begin(f"file={self.file},pos={self._start}")
            return
        if self.mariadb_server:
            return
        self.tx_standalone = False
        self.thread = thread
        self._begin(self.gtid or f"file={self.file},pos={self._start}")

    def _on_commit(self, upper: str) -> None:
        """A QUERY `COMMIT`, `ROLLBACK` or other `XA ...` (its first 16 characters in upper case)."""
        if self.in_tx and upper == "COMMIT":
            self.dispatcher.commit(self.tx.begin_id or "", self._ts * 1000)
            self.metrics.committed(self.commit_ts_us // 1000 or self._ts * 1000, self.gtid)
        self._complete()

    def _history_position(self) -> dict:
        """The binlog position a schema-history record of the event being handled carries."""
        position = {"file": self.file, "pos": self._start, "server_id": self._sid, "ts_sec": self._ts}
        if self.gtids is not None:
            position["gtids"] = str(self.gtids)
        if self.gtid:
            position["gtid"] = self.gtid
        return position

    def _apply_changes(self, changes: list[Change], db: str) -> None:
        ts_ms = self.commit_ts_us // 1000 if self.commit_ts_us else self._ts * 1000
        position = self._history_position()
        # one statement naming several tables (DROP TABLE a, b / RENAME TABLE a TO b, c TO d): each of its
        # events carries the tables of its run of consecutive events in one database in source.table, in Debezium's
        # (HashSet) order (DdlChanges.getEventsByDatabase; campaign seed 88004: a RENAME across databases)
        names = [ch.table_name for ch in changes if ch.kind in ("CREATE", "ALTER", "DROP") and ch.table_name]
        joined = _joined_by_database_runs(changes) if len(names) > 1 else {}
        for i, ch in enumerate(changes):
            if ch.kind == "TRUNCATE":
                self._truncate(ch)
                continue
            if ch.table_name:
                self._invalidate(ch.db, ch.table_name)
                if ch.kind == "ALTER":
                    self.incremental.on_schema_change(f"{ch.db}.{ch.table_name}")
                if self.type_cfg.convert_fail and ch.kind in ("CREATE", "ALTER") and ch.table is not None:
                    # event.converting.failure.handling.mode=fail: Debezium builds a captured table's schema as it
                    # applies the DDL, so a DEFAULT it cannot convert stops before the schema change is emitted
                    self._captured(ch.db, ch.table_name)
            if ch.previous:
                self._invalidate(*ch.previous)
            if ch.kind == "DATABASE" and ch.ddl.upper().startswith("DROP"):
                self.by_id = {k: v for k, v in self.by_id.items() if not k.startswith(ch.db + ".")}
                self.schema_epoch += 1
            # store.only.captured.databases.ddl: Debezium skips (history and topic) the statements of
            # databases it does not capture; by default it keeps them all
            if self.store_only_captured_dbs and not self._schema_change_db_ok(ch.db):
                continue
            if self.store_only_captured_tables and not self._captured_ddl(ch):
                continue
            # (an ALTER without a table: the rename of a table the model does not know, or a RENAME pair
            # whose new name a later pair renamed away: no table change)
            known = ch.table is not None or ch.kind == "DROP"
            tcs = [table_change(ch)] if ch.kind in ("CREATE", "ALTER", "DROP") and known else []
            self.history.append(position, ts_ms, ch.db, ch.ddl, [history_change(ch)] if tcs else [])
            if self.include_schema_changes:
                table = joined.get(i) or (
                    "" if ch.kind == "OTHER" else ch.table_name if ch.kind != "DATABASE" else None
                )
                src = source_block(
                    self.prefix,
                    self.flavor.name,
                    ts_ms * 1000,
                    "false",
                    ch.db,
                    table,
                    self._sid,
                    self.gtid,
                    self.file,
                    self._start,
                    self.last_row,
                )
                self._emit_schema_change(ch.db, ch.ddl, tcs, src, ts_ms)

    def _snapshot_schema_built(self, changes: list[Change]) -> None:
        """event.converting.failure.handling.mode=fail in the snapshot's schema read: Debezium builds a captured
        table's schema as its CREATE TABLE is dispatched, so a DEFAULT it cannot convert stops before that record, the
        ones before it delivered (recorded: case converting_fail_default_snapshot_stops)."""
        try:
            for ch in changes:
                if ch.kind == "CREATE" and ch.table is not None:
                    self._captured(ch.db, ch.table_name)
        except Exception:
            self._flush_pending_schema_change("true")
            raise

    def _captured_ddl(self, ch: Change) -> bool:
        """store.only.captured.tables.ddl: whether Debezium records and emits this change
        (BinlogDatabaseSchema.parseDdl's ddlChanges.anyMatch(filters) and the dispatcher's table filter): a
        table change of a captured table, a database change of a captured database, a global SET; not a bare
        statement (CREATE INDEX...: no parser event). Recorded: mariadb case store_only_captured_tables."""
        if ch.kind in ("CREATE", "ALTER", "DROP") and ch.table_name:
            return self.filters.table_included(ch.db, ch.table_name)
        if ch.kind == "DATABASE":
            return self._db_included(ch.db)
        return not ch.db and ch.ddl[:4].upper() == "SET "

    def _truncate(self, ch: Change) -> None:
        ct = self._captured(ch.db, ch.table_name or "")
        if ct is None or not self.dispatcher.admit("t", True):
            return
        self.dispatcher.truncate(ct.env, ct.data_collection, self._src(ct, 0), self._tx_id())


def db_charset(create_db: str, server_cs: tuple) -> tuple[str, str]:
    cs = re.search(r"(?i)CHARACTER SET (\w+)", create_db)
    coll = re.search(r"(?i)COLLATE (\w+)", create_db)
    charset = cs.group(1) if cs else server_cs[0]
    collation = (
        coll.group(1) if coll else (server_cs[1] if charset == server_cs[0] else f"{charset}_general_ci")
    )
    return charset, collation


def table_change(ch: Change) -> dict:
    if ch.kind == "DROP" or ch.table is None:
        return {"type": ch.kind, "id": dq_id(ch.db, ch.table_name or ""), "table": None}
    return {"type": ch.kind, "id": ch.table.quoted_id, "table": ch.table.change_payload()}


def _joined_by_database_runs(changes: list[Change]) -> dict[int, str]:
    """Each change's index -> the names of the tables of its run of consecutive changes in one database, joined as
    Debezium's HashSet orders them."""
    out: dict[int, str] = {}
    start = 0
    for end in range(1, len(changes) + 1):
        if end < len(changes) and changes[end].db == changes[start].db:
            continue
        ids = [(ch.db, ch.table_name) for ch in changes[start:end] if ch.table_name]
        if ids:
            out.update(dict.fromkeys(range(start, end), _java_hashset_join(ids)))
        start = end
    return out


def _java_hashset_join(tables: list[tuple[str, str]]) -> str:
    """Table names joined with "," in the iteration order of a java.util.HashSet of Debezium TableIds
    (hash of "db.table"; equal by their parts): by bucket of the final capacity, then insertion order."""
    ids = list(dict.fromkeys(tables))
    mask = table_size(len(ids)) - 1

    def bucket(t: tuple[str, str]) -> int:
        h = string_hash(f"{t[0]}.{t[1]}")
        return (h ^ (h >> 16)) & mask

    order = sorted(range(len(ids)), key=lambda i: (bucket(ids[i]), i))
    return ",".join(ids[i][1] for i in order)


def history_change(ch: Change) -> dict:
    d: dict[str, Any] = {
        "type": ch.kind,
        "id": ch.table.quoted_id if ch.table else dq_id(ch.db, ch.table_name or ""),
    }
    if ch.previous:
        d["previousId"] = dq_id(*ch.previous)
    if ch.table is not None and ch.kind != "DROP":
        d["table"] = ch.table.to_json()
    return d
