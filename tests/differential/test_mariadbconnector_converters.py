"""The MariaDbConnector replay of a recording made with `converters` (differential_mariadb.MariaDbConnectorBackend):
the emulator runs without the converters' properties, and only the data topics of tables no converter could select
are compared (with the schema changes). The selection must over-approximate Debezium's: a table left in while a
converter touched it would show a false mismatch, one left out only narrows the comparison."""

from __future__ import annotations

from pathlib import Path

from emulator.testing.conformance import load_golden
from emulator.testing.differential_mariadb import (
    MARIADB_CONNECTOR,
    MariaDbConnectorBackend,
    converter_keys,
    transaction_problems,
    unconverted_tables,
)

CONFIG = {
    "converters": "tiny, jdbc,zd",
    "tiny.type": "io.debezium.connector.binlog.converters.TinyIntOneToBooleanConverter",
    "tiny.length.checker": "false",
    "jdbc.type": "io.debezium.connector.mysql.converters.JdbcSinkDataTypesConverter",
    "jdbc.selector.real": r"inventory\.r\.f",
    "zd.type": "io.debezium.connector.binlog.converters.ZeroDateFallbackConverter",
    "zd.selector": r"inventory\.z\..*",
    "tinyint.note": "not a converter option (no alias `tinyint`)",
    "decimal.handling.mode": "string",
}


def _change(db: str, table: str, *cols: tuple[str, str]) -> dict:
    columns = [{"name": n, "typeName": t} for n, t in cols]
    return {
        "value": {
            "payload": {
                "ddl": "...",
                "tableChanges": [{"id": f'"{db}"."{table}"', "table": {"columns": columns}}],
            }
        }
    }


def _row(db: str, table: str, *fields: dict) -> dict:
    after = {"type": "struct", "field": "after", "fields": [{"type": "int32", "field": "id"}, *fields]}
    return {
        "key": {
            "schema": {"type": "struct", "fields": [{"type": "int32", "field": "id"}]},
            "payload": {"id": 1},
        },
        "value": {
            "schema": {"type": "struct", "fields": [after]},
            "payload": {"op": "c", "source": {"db": db, "table": table}, "after": {"id": 1}},
        },
    }


RECORDS = {
    "dbserver1": [
        _change("inventory", "plain", ("id", "INT"), ("d", "DATE"), ("f", "FLOAT")),  # nothing selects these
        _change("inventory", "b", ("id", "INT")),
        _change("inventory", "b", ("id", "INT"), ("flag", "TINYINT")),  # a later version: TINYINT
        _change("inventory", "r", ("id", "INT"), ("f", "FLOAT")),  # jdbc's selector.real
        _change("inventory", "z", ("id", "INT"), ("d", "DATETIME")),  # zd's selector and type
        _change("other", "z", ("id", "INT"), ("d", "DATETIME")),  # zd's type, not its selector
        _change("inventory", 'q"t', ("id", "INT")),  # a quoted name
    ],
    "dbserver1.inventory.plain": [_row("inventory", "plain")],
    "dbserver1.inventory.b": [_row("inventory", "b")],
    "dbserver1.inventory.r": [_row("inventory", "r")],
    "dbserver1.inventory.z": [_row("inventory", "z")],
    "dbserver1.other.z": [_row("other", "z")],
    # tables without schema changes (include.schema.changes=false): read from their fields
    "dbserver1.inventory.u_plain": [_row("inventory", "u_plain", {"type": "int16", "field": "n"})],
    "dbserver1.inventory.u_bool": [
        _row("inventory", "u_bool"),
        _row("inventory", "u_bool", {"type": "boolean", "field": "b"}),  # (a later version)
    ],
    "dbserver1.inventory.u_date": [
        _row("inventory", "u_date", {"type": "int32", "name": "io.debezium.time.Date", "field": "d"})
    ],
    "dbserver1.inventory.r2": [_row("inventory", "r2", {"type": "float64", "field": "f"})],  # (not jdbc's)
    "__debezium-heartbeat.dbserver1": [{"value": {"payload": {"ts_ms": 1}}}],
}


def test_converter_keys_are_the_converters_and_their_aliases_options():
    assert sorted(converter_keys(CONFIG)) == sorted(
        [
            "converters",
            "tiny.type",
            "tiny.length.checker",
            "jdbc.type",
            "jdbc.selector.real",
            "zd.type",
            "zd.selector",
        ]
    )
    assert converter_keys({"decimal.handling.mode": "string"}) == []


def test_unconverted_tables_over_approximate_the_selection():
    assert unconverted_tables(CONFIG, RECORDS) == {
        ("inventory", "plain"),
        ("other", "z"),
        ("inventory", 'q"t'),
        ("inventory", "u_plain"),
        ("inventory", "r2"),
    }
    # with adjusted field names jdbc's selectors cannot be matched on the fields: any field
    adjusted = {**CONFIG, "field.name.adjustment.mode": "avro"}
    assert ("inventory", "r2") not in unconverted_tables(adjusted, RECORDS)
    assert ("inventory", "plain") in unconverted_tables(adjusted, RECORDS)  # (described by its schema change)
    # an unknown converter class or an unreadable selector: every column
    assert unconverted_tables({"converters": "x", "x.type": "com.example.Conv"}, RECORDS) == set()
    bad = {"converters": "t", "t.type": "x.TinyIntOneToBooleanConverter", "t.selector": "inventory\\.(b"}
    assert ("inventory", "plain") in unconverted_tables(bad, RECORDS)  # (no TINYINT there)
    assert ("inventory", "b") not in unconverted_tables(bad, RECORDS)


def test_replay_drops_the_converters_and_compares_the_other_tables():
    be = MariaDbConnectorBackend()
    props = dict(CONFIG)
    be.emulator_props(props)
    assert props == {
        "tinyint.note": CONFIG["tinyint.note"],
        "decimal.handling.mode": "string",
        "connector.class": MARIADB_CONNECTOR,
    }
    be.recorded_config = CONFIG
    gold, ours = be.comparable(RECORDS, RECORDS)
    assert (
        sorted(gold)
        == sorted(ours)
        == [
            "__debezium-heartbeat.dbserver1",
            "dbserver1",
            "dbserver1.inventory.plain",
            "dbserver1.inventory.r2",
            "dbserver1.inventory.u_plain",
            "dbserver1.other.z",
        ]
    )
    be.recorded_config = {"decimal.handling.mode": "string"}  # no converters: every topic
    assert sorted(be.comparable(RECORDS, RECORDS)[0]) == sorted(RECORDS)


def test_transaction_metadata_checked_against_itself():
    """transaction_problems (the MariaDbConnector replay's check of the emulator's transaction metadata, which the
    MySqlConnector recording cannot show) passes the MariaDbConnector's own recording and finds what breaks it."""
    recording = load_golden(Path(__file__).parents[1] / "data" / "mariadb" / "mariadb_public.jsonl")
    assert transaction_problems(recording) == []  # (DDL transactions: a BEGIN, no END)
    txs = [r for r in recording["dbserver1.transaction"] if r["value"]["payload"]["status"] == "END"]
    end = next(r for r in txs if r["value"]["payload"]["event_count"] == 2)["value"]["payload"]
    rows = recording["dbserver1.inventory.customers"]
    first = next(
        i
        for i, r in enumerate(rows)
        if ((r["value"] or {}).get("payload", {}).get("transaction") or {}).get("id") == end["id"]
    )
    del rows[first]
    assert transaction_problems(recording) == [
        f"transaction {end['id']}: total_order [2] is not 1..1",
        f"transaction {end['id']}: END event_count 2, 1 records",
        f"transaction {end['id']}: inventory.customers orders [2], END says 2",
    ]


def test_transactions_debezium_never_ends_pass_the_check_and_no_others():
    """(session 18) Debezium writes an END only at an XID or COMMIT: a TRUNCATE's transaction (its `t` record carries
    the block) and an XA transaction's prepared rows (XA PREPARE is ignored) have a BEGIN only (campaign seed 93007).
    The check lets those through: a transaction with a `t` record, and as many others as the workload has XA
    PREPAREs; one more is still a problem."""

    def tx(status: str, i: str) -> dict:
        return {
            "topic": "dbserver1.transaction",
            "key": {
                "schema": {"name": "io.debezium.connector.common.TransactionMetadataKey"},
                "payload": {"id": i},
            },
            "value": {"payload": {"status": status, "id": i}},
        }

    def row(i: str, op: str) -> dict:
        src = {"db": "inventory", "table": "t"}
        block = {"id": i, "total_order": 1, "data_collection_order": 1}
        return {
            "topic": "dbserver1.inventory.t",
            "key": None,
            "value": {"payload": {"op": op, "source": src, "transaction": block}},
        }

    records = {
        "dbserver1.transaction": [
            tx("BEGIN", "0-1-5"),
            tx("BEGIN", "0-1-6"),
            tx("BEGIN", "0-1-7"),
            tx("BEGIN", "0-1-8"),
        ],
        "dbserver1.inventory.t": [row("0-1-5", "t"), row("0-1-6", "c"), row("0-1-7", "d"), row("0-1-8", "c")],
    }
    assert transaction_problems(records, xa_prepares=1) == [
        "transaction 0-1-7: ['BEGIN'] on the transaction topic",
        "transaction 0-1-7: END event_count None, 1 records",
        "transaction 0-1-7: inventory.t orders [1], END says None",
    ]  # (0-1-8, the last, may be unfinished)
    assert transaction_problems(records, xa_prepares=2) == []
