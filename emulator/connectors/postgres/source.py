"""The PostgreSQL connector's `source` block and its other fixed schemas."""

from __future__ import annotations

from emulator import DEBEZIUM_VERSION
from emulator.connect.schema import OPT_INT64, OPT_STRING, REQ_STRING, Schema, struct
from emulator.connectors.common import SNAPSHOT_ENUM, SOURCE_HEAD  # noqa: F401 - SNAPSHOT_ENUM re-exported

SOURCE_SCHEMA = struct(
    "io.debezium.connector.postgresql.Source",
    [
        *SOURCE_HEAD,
        ("schema", REQ_STRING),
        ("table", REQ_STRING),
        ("txId", OPT_INT64),
        ("lsn", OPT_INT64),
        ("xmin", OPT_INT64),
        ("origin", OPT_STRING),
        ("origin_lsn", OPT_INT64),
    ],
    version=1,
)

MESSAGE_KEY_SCHEMA = struct(
    "io.debezium.connector.postgresql.MessageKey", [("prefix", OPT_STRING)], version=1
)


def message_value_schema(content: Schema) -> Schema:
    from emulator.envelope import TX_BLOCK

    return struct(
        "io.debezium.connector.postgresql.MessageValue",
        [
            ("op", REQ_STRING),
            ("ts_ms", OPT_INT64),
            ("source", SOURCE_SCHEMA),
            ("transaction", TX_BLOCK),
            (
                "message",
                struct(
                    "io.debezium.connector.postgresql.Message",
                    [("prefix", OPT_STRING), ("content", content)],
                    version=1,
                ),
            ),
        ],
        version=1,
    )


class SourceBuilder:
    """Builds source-block payloads; the constant head is shared."""

    __slots__ = ("name", "db")

    def __init__(self, name: str, db: str) -> None:
        self.name = name
        self.db = db

    def __call__(
        self,
        ts_us: int,
        snapshot: str,
        sequence: str | None,
        schema: str,
        table: str,
        tx_id: int | None,
        lsn: int | None,
    ) -> dict:
        return {
            "version": DEBEZIUM_VERSION,
            "connector": "postgresql",
            "name": self.name,
            "ts_ms": ts_us // 1000,
            "snapshot": snapshot,
            "db": self.db,
            "sequence": sequence,
            "ts_us": ts_us,
            "ts_ns": ts_us * 1000,
            "schema": schema,
            "table": table,
            "txId": tx_id,
            "lsn": lsn,
            "xmin": None,
            "origin": None,
            "origin_lsn": None,
        }


def sequence(last_commit_lsn: int | None, lsn: int | None) -> str:
    a = "null" if last_commit_lsn is None else f'"{last_commit_lsn}"'
    b = "null" if lsn is None else f'"{lsn}"'
    return f"[{a},{b}]"


def restored_last_commit(stored: dict) -> int | None:
    """`sequence`'s first element (Debezium's lastCommitLsn) after a restart from the offset `stored`.
    Debezium's offset loader takes `lsn_commit`, else `lsn_proc`; its snapshot offset has neither (null until
    the first commit, as in a first run), its streaming offset's `lsn_commit` is the last COMMIT's LSN (tests/data/pg/
    restart_sequence: the first change after a restart carries [last commit, lsn]). The emulator's offset
    also keeps `lsn_commit` after a snapshot and moves it to the server's position while idle (where its
    stream restarts), so: no `messageType` (nothing streamed yet) is null; after a COMMIT or a
    non-transactional message (no `txId`) `lsn_proc` is that commit's LSN; inside a transaction the offset also
    keeps `last_commit_lsn` (Debezium's lastCommitLsn, which moves only at a COMMIT), null inside the first
    transaction after a snapshot, where Debezium's offset has no `lsn_commit` and its loader takes `lsn_proc`
    (tests/data/pg/restart_sequence/inside_*_tx.jsonl)."""
    kind = stored.get("messageType")
    if kind is None:
        return None
    if (
        kind == "COMMIT"
        or (kind == "MESSAGE" and stored.get("txId") is None)
        or stored.get("lsn_commit") is None
    ):
        return stored.get("lsn_proc")
    if "last_commit_lsn" in stored:  # inside a transaction: Debezium's own lastCommitLsn, stored beside ours
        return stored["last_commit_lsn"] if stored["last_commit_lsn"] is not None else stored.get("lsn_proc")
    return stored["lsn_commit"]  # an offset from before session 20
