"""The sink campaign's third set of draws (session 20), for seeds from `FROM_SEED` on (older seeds run as
before), each from a random stream of its own (`{seed}/{index}/shapes`; the statements' own stream `r` is not
touched, their extra statements get ids from 5000 on):

- keys no earlier round drew: a DECIMAL (`numeric(12,3)`), a millisecond timestamp, a text with escapes and
  unicode (tab, newline, `"`, `\\`, `'`, ü, €, an emoji on PostgreSQL), and a composite key whose columns are
  named `schema` and `payload` (the JsonConverter envelope's names, `sink/oldkey.py`);
- on Kafka, `header.converter` JsonConverter (30 %) beside Connect's default SimpleHeaderConverter, whose
  `__debezium.oldkey` is the old key's `Values` text;
- MariaDB with `decimal.handling.mode=string` and `time.precision.mode=connect` together (30 %);
- extra statements between the drawn ones: a key deleted and inserted again (sometimes in one transaction),
  bursts of 3-6 updates of one row (SCD2 versions of one key in one batch), more key changes (with a TOAST
  column, the base image's carry), and a column widened (`integer` to `bigint`, `varchar(20)` to
  `varchar(40)`, `numeric(10,2)` to `numeric(14,2)`; MariaDB's counterparts)."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace
from typing import Any

from emulator.testing.sink_campaign_types import ColType, Modes

FROM_SEED = 17
NEW_KEYS = ("decimal", "ts", "esc", "named")
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
_ESC_PG = ("\t", "\n", '"', "\\", "'", "ü", "€", "😀", " ")
_ESC_MARIADB = ("\t", "\n", '"', "\\", "'", "ü", "€", " ")  # VARCHAR(40) of utf8mb4; no trailing-space edge
_BASE_TS = dt.datetime(2024, 1, 15, 10, 0, 0)

WIDEN = {
    "pg": {
        "integer": "bigint",
        "smallint": "integer",
        "varchar(20)": "varchar(40)",
        "numeric(10,2)": "numeric(14,2)",
    },
    "mariadb": {
        "INT": "BIGINT",
        "SMALLINT": "INT",
        "VARCHAR(30)": "VARCHAR(60)",
        "DECIMAL(10,2)": "DECIMAL(14,2)",
    },
}


def key_types(db: str, kind: str) -> dict[str, ColType]:
    """A new key kind's columns and their types (the comparison's expected values go through them)."""
    pg = db == "pg"
    if kind == "decimal":
        return {"id": ColType("numeric(12,3)" if pg else "DECIMAL(12,3)", (), "num")}
    if kind == "ts":
        return {"id": ColType("timestamp(3)" if pg else "DATETIME(3)", (), "ts", 3)}
    if kind == "esc":
        return {"id": ColType("text" if pg else "VARCHAR(40)", (), "str")}
    return {
        "schema": ColType("integer" if pg else "INT", (), "int"),
        "payload": ColType("varchar(10)" if pg else "VARCHAR(10)", (), "str"),
    }


def draw_shapes(
    r3: random.Random, db: str, m: Modes, props: dict[str, str], tables: list, kafka: bool
) -> Modes:
    """Settings and key kinds from `r3`; the tables' `key` and `keytypes` are set in place."""
    for t in tables:
        if t.key != "none" and r3.random() < 0.5:
            t.key = r3.choice(NEW_KEYS)
            t.keytypes = key_types(db, t.key)
    if db == "mariadb" and r3.random() < 0.3:
        m = replace(m, decimal="string", time="connect")
        props["decimal.handling.mode"], props["time.precision.mode"] = "string", "connect"
    if kafka and r3.random() < 0.3:
        props["header.converter"] = JSON_CONVERTER
    return m


def new_key(r3: random.Random, db: str, kind: str, n: int) -> list[str]:
    """A new key's SQL literals for id number `n`."""
    if kind == "decimal":
        sign = "-" if r3.random() < 0.2 else ""
        return [f"{sign}{n}.{r3.choice(['125', '5', '1', '999', '0'])}"]
    if kind == "ts":
        t = _BASE_TS + dt.timedelta(seconds=n, milliseconds=r3.choice([0, 1, 125, 999]))
        return ["'" + t.isoformat(sep=" ", timespec="milliseconds") + "'"]
    if kind == "esc":
        chars = _ESC_PG if db == "pg" else _ESC_MARIADB
        s = f"k{n}" + "".join(r3.choice(chars) for _ in range(r3.randint(1, 4)))
        return [sql_text(db, s.rstrip(" ") + "x")]  # MariaDB's PAD SPACE compares 'a' and 'a ' equal
    return [str(n), r3.choice(["'a'", "'b'"])]


def sql_text(db: str, s: str) -> str:
    """A string literal: PostgreSQL's standard strings (backslash literal), MariaDB's escapes."""
    if db == "pg":
        return "'" + s.replace("'", "''") + "'"
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def key_literal(db: str, v: Any) -> str:
    if isinstance(v, int):
        return str(v)
    if isinstance(v, dt.datetime):
        return "'" + v.isoformat(sep=" ") + "'"
    return sql_text(db, str(v))


def widen(db: str, t) -> tuple[str, str, ColType] | None:
    """A column of `t` that can be widened: (name, DDL type, its new ColType); None when none can."""
    to = WIDEN[db]
    for name, c in t.cols.items():
        if c.sql in to and (db == "pg" or name == "rev" or name not in t.defaults):
            sql = to[c.sql] + (" NOT NULL DEFAULT 0" if db == "mariadb" and name == "rev" else "")
            return name, sql, ColType(to[c.sql], c.values, c.kind, c.prec)
    return None


def extra(runner, r3: random.Random) -> None:
    """One extra statement group, drawn from `r3` (run with `runner.r` swapped for it by the caller)."""
    w = runner.w
    t = r3.choice(w.tables)
    op = r3.choice(["reinsert", "reinsert", "burst", "burst", "rekey", "widen"])
    if op == "widen":
        found = widen(w.db, t)
        if found is None:
            return
        name, sql, c = found
        q = runner.q(name)
        ddl = f"ALTER COLUMN {q} TYPE {sql}" if w.db == "pg" else f"MODIFY COLUMN {q} {sql}"
        runner.run(f"ALTER TABLE {runner.qt(t)} {ddl}")
        t.cols[name] = c
        runner.oracle.last[t.name] = runner.keyed(t)
        return
    if op == "rekey":
        runner.dml(t, "rekey")
        runner.oracle.step(t.name, runner.keyed(t))
        return
    row = runner.pick(t)
    if row is None or t.key == "none":
        return
    if op == "burst":
        for _ in range(r3.randint(3, 6)):
            runner.update_row(t, row)
            runner.oracle.step(t.name, runner.keyed(t))
        return
    # a key deleted and inserted again, with other values: in one transaction or in two statements
    tx = r3.random() < 0.5
    if tx:
        runner.run("BEGIN" if w.db == "pg" else "START TRANSACTION")
    runner.run(f"DELETE FROM {runner.qt(t)} WHERE {runner.where(t, row)}")
    runner.oracle.step(t.name, runner.keyed(t))
    runner.insert_key(t, [key_literal(w.db, row[c]) for c in t.key_cols()])
    runner.oracle.step(t.name, runner.keyed(t))
    if tx:
        runner.run("COMMIT")
