"""The sink campaign's random tables and workloads (`sink_campaign.py`), run live against a throwaway server.

A workload is drawn from a seed: 1-3 tables (key: one int, a composite (int, varchar), one text, or none), each
with a few columns of `sink_campaign_types` types, a `rev` counter that every update bumps (so that every
update changes the row and becomes an SCD2 version) and, on PostgreSQL, sometimes a TOAST-able text under
REPLICA IDENTITY DEFAULT (placeholders) or FULL; then statements: inserts, updates of a few columns, key
changes, deletes, small transactions, TRUNCATE, ADD COLUMN (with or without a DEFAULT) and DROP COLUMN. The
statements are drawn against the source's current rows (read back after each one), so a seed always gives
the same workload. After each statement the touched tables are read back: the per-key sequence of row states
is the SCD2 oracle (`Oracle`), the last read the mirror's."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from emulator.testing import sink_campaign_shapes as shapes
from emulator.testing.sink_campaign_more import (
    EXTENSIONS,
    MARIADB_MORE,
    PG_ARRAYS,
    PG_MORE,
    mariadb_select,
    pg_select,
)
from emulator.testing.sink_campaign_types import (
    MARIADB_COLS,
    MARIADB_TOAST,
    PG_COLS,
    PG_TOAST,
    ColType,
    Modes,
)

KEYS = ("int", "composite", "text", "none")


@dataclass
class Table:
    name: str
    key: str  # one of KEYS
    cols: dict[str, ColType]  # non-key columns in order (rev first)
    identity: str = "default"  # PostgreSQL REPLICA IDENTITY
    defaults: set[str] = field(default_factory=set)  # columns added with a DEFAULT: never set to NULL
    added: int = 0
    keytypes: dict[str, ColType] = field(default_factory=dict)  # the key kinds of `sink_campaign_shapes`

    def key_cols(self) -> list[str]:
        if self.key == "named":
            return ["schema", "payload"]
        return {"composite": ["id", "k"]}.get(self.key, ["id"])

    def coltype(self, name: str) -> ColType | None:
        return self.cols.get(name) or self.keytypes.get(name)

    def all_cols(self) -> list[str]:
        return self.key_cols() + list(self.cols)


@dataclass
class Workload:
    db: str
    index: int
    modes: Modes
    props: dict[str, str]  # connector properties the draw chose
    unwrap: bool
    tables: list[Table]
    focus: str = ""  # "keyless-drop": every table without a key, DROP COLUMN often (sink/keyless.py)
    statements: list[str] = field(default_factory=list)  # as run, for the record


def draw_config(r: random.Random, db: str) -> tuple[Modes, dict[str, str], bool]:
    times = (
        ["adaptive", "adaptive_time_microseconds", "connect"]
        if db == "pg"
        else ["adaptive_time_microseconds", "connect"]
    )
    m = Modes(
        decimal=r.choice(["precise", "double", "string"]),
        binary=r.choice(["bytes", "base64", "base64-url-safe", "hex"]),
        time=r.choice(times),
    )
    props = {
        "decimal.handling.mode": m.decimal,
        "binary.handling.mode": m.binary,
        "time.precision.mode": m.time,
        "tombstones.on.delete": r.choice(["true", "false"]),
        "skipped.operations": "none",  # truncates reach the topics
    }
    if r.random() < 0.3:
        props["provide.transaction.metadata"] = "true"
    unwrap = r.random() < 0.2
    if unwrap:  # what the sink reads of ExtractNewRecordState: __deleted, optionally __op
        props.update(
            {
                "transforms": "unwrap",
                "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
                "transforms.unwrap.delete.tombstone.handling.mode": "rewrite",
            }
        )
        if r.random() < 0.5:
            props["transforms.unwrap.add.fields"] = "op"
    return m, props, unwrap


def draw_more(r2: random.Random, db: str, m: Modes, props: dict[str, str], tables: list[Table]) -> Modes:
    """The second set (`sink_campaign_more`), from its own stream `r2`: settings, then per table 0-3 columns
    named x0, x1, ... (their values drawn from `r2` too, so the first set's statements stay the seed's)."""
    if db == "pg":
        if r2.random() < 0.4:
            m = replace(m, time=r2.choice(["isostring", "microseconds", "nanoseconds"]))
            props["time.precision.mode"] = m.time
        m = replace(m, interval=r2.choice(["numeric", "string"]))
        props["interval.handling.mode"] = m.interval
    else:
        m = replace(m, unsigned=r2.choice(["long", "precise"]))
        props["bigint.unsigned.handling.mode"] = m.unsigned
    pool = PG_MORE + PG_ARRAYS if db == "pg" else MARIADB_MORE
    for t in tables:
        if r2.random() < 0.75:
            for i, c in enumerate(r2.sample(pool, k=r2.randint(1, 3))):
                t.cols[f"x{i}"] = c
    return m


def more_pool(db: str) -> list[ColType]:
    return PG_MORE + PG_ARRAYS if db == "pg" else MARIADB_MORE


def draw_tables(r: random.Random, db: str, unwrap: bool = False) -> list[Table]:
    pool = PG_COLS if db == "pg" else MARIADB_COLS
    out = []
    for t in range(r.randint(1, 3)):
        # the sink refuses unwrapped records of a table without a key (test_sink_unwrap)
        key = r.choice(KEYS[:-1] if unwrap else KEYS)
        cols: dict[str, ColType] = {"rev": ColType("integer" if db == "pg" else "INT", ("0",), "int")}
        for i, c in enumerate(r.sample(pool, k=r.randint(2, 6))):
            cols[f"c{i}"] = c
        if r.random() < 0.4:
            cols["big"] = PG_TOAST if db == "pg" else MARIADB_TOAST
        identity = "full" if key == "none" or r.random() < 0.4 else "default"
        out.append(Table(f"t{t}", key, cols, identity))
    return out


class Oracle:
    """Per table and key, the row states in commit order: a version per change, None for a delete/truncate."""

    def __init__(self) -> None:
        self.last: dict[str, dict[tuple, dict]] = {}
        self.versions: dict[str, dict[tuple, list[dict | None]]] = {}
        self.key_changed: dict[str, set[tuple]] = {}

    def baseline(self, table: str, rows: dict[tuple, dict]) -> None:
        self.last[table] = rows
        self.versions.setdefault(table, {})
        self.key_changed.setdefault(table, set())
        for k, row in rows.items():
            self.versions[table].setdefault(k, []).append(row)

    def step(self, table: str, rows: dict[tuple, dict], truncate: bool = False) -> None:
        old, vs = self.last[table], self.versions[table]
        if truncate:
            for k in old:
                vs[k].append(None)
            old = {}
        for k in old.keys() - rows.keys():
            vs[k].append(None)
        for k, row in rows.items():
            if old.get(k) != row:
                vs.setdefault(k, []).append(row)
        self.last[table] = rows


class Runner:
    """Draws and runs one workload's statements on a live connection (psycopg or pymysql, autocommit)."""

    def __init__(self, w: Workload, conn: Any, r: random.Random, schema: str) -> None:
        self.w, self.conn, self.r, self.schema = w, conn, r, schema
        self.oracle = Oracle()
        self.next_id = 1000
        # the second set's values (x columns); getstate() draws nothing from r
        self.r2 = random.Random(f"{r.getstate()[1][:4]}/more")
        self.r3: random.Random | None = None  # `sink_campaign_shapes`' stream (seeds from its FROM_SEED)
        self.extra_id = 5000  # the ids of its extra statements, apart from the drawn ones'

    # -- SQL helpers ----------------------------------------------------------------------------------
    def q(self, name: str) -> str:
        return f'"{name}"' if self.w.db == "pg" else f"`{name}`"

    def qt(self, t: Table) -> str:
        return f"{self.q(self.schema)}.{self.q(t.name)}"

    def run(self, sql: str) -> None:
        self.w.statements.append(sql)
        cur = self.conn.cursor()
        cur.execute(sql)
        cur.close()

    def fetch(self, sql: str) -> list[tuple]:
        cur = self.conn.cursor()
        cur.execute(sql)
        rows = cur.fetchall()
        cur.close()
        return rows

    def rows(self, t: Table) -> list[dict]:
        """The table's rows as the source holds them (see `sink_campaign_types.pg_select`)."""
        names = t.all_cols()
        select = pg_select if self.w.db == "pg" else mariadb_select
        sel = ", ".join(select(n, t.coltype(n)) if t.coltype(n) else self.q(n) for n in names)
        return [dict(zip(names, row, strict=True)) for row in self.fetch(f"SELECT {sel} FROM {self.qt(t)}")]

    def keyed(self, t: Table) -> dict[tuple, dict]:
        if t.key == "none":
            return {}
        kc = t.key_cols()
        return {tuple(row[c] for c in kc): row for row in self.rows(t)}

    def literal(self, t: Table, name: str, c: ColType) -> str:
        if c.kind == "toast":
            return self.toast()
        r = self.r2 if name.startswith("x") else self.r
        if name not in t.defaults and r.random() < 0.2:
            return "NULL"
        values = c.values
        if self.w.modes.time == "isostring" and c.kind in ("date", "ts", "arr"):
            # isostring's +-infinity are java.time's overflowed years: not reasoned here (module doc)
            values = tuple(v for v in values if "infinity" not in v) or ("NULL",)
        return r.choice(values)

    def toast(self) -> str:
        n = self.r.choice([100, 400, 1200])
        salt = f"{self.r.random():.6f}"
        if self.w.db == "pg":
            return f"(SELECT string_agg(md5(i::text || '{salt}'), '') FROM generate_series(1, {n}) i)"
        return f"REPEAT(MD5('{salt}'), {n})"

    def new_key(self, t: Table) -> list[str]:
        self.next_id += 1
        if t.keytypes:
            return shapes.new_key(self.r, self.w.db, t.key, self.next_id)
        if t.key == "composite":
            return [str(self.next_id), self.r.choice(["'a'", "'b'"])]
        if t.key == "text":
            return [f"'k{self.next_id}'"]
        if t.key == "none" and self.r.random() < 0.3:
            return [str(self.r.choice([1, 2, 3]))]  # keyless: duplicates on purpose
        return [str(self.next_id)]

    def where(self, t: Table, row: dict) -> str:
        parts = []
        for c in t.key_cols():
            v = row[c]
            parts.append(f"{self.q(c)} = " + shapes.key_literal(self.w.db, v))
        return " AND ".join(parts)

    # -- statements --------------------------------------------------------------------------------------
    def create(self, t: Table) -> None:
        kt = {
            "int": ["integer"],
            "composite": ["integer", "varchar(10)"],
            "text": ["text"],
            "none": ["integer"],
        }
        ktypes = (
            [c.sql for c in t.keytypes.values()]
            if t.keytypes
            else kt[t.key]
            if self.w.db == "pg"
            else [
                {"integer": "INT", "varchar(10)": "VARCHAR(10)", "text": "VARCHAR(40)"}[x] for x in kt[t.key]
            ]
        )
        defs = [f"{self.q(n)} {ty} NOT NULL" for n, ty in zip(t.key_cols(), ktypes, strict=True)]
        defs += [
            f"{self.q(n)} {c.sql}" + (" NOT NULL DEFAULT 0" if n == "rev" else "") for n, c in t.cols.items()
        ]
        if t.key != "none":
            defs.append("PRIMARY KEY (" + ", ".join(self.q(c) for c in t.key_cols()) + ")")
        self.run(f"CREATE TABLE {self.qt(t)} ({', '.join(defs)})")
        if self.w.db == "pg" and t.identity == "full":
            self.run(f"ALTER TABLE {self.qt(t)} REPLICA IDENTITY FULL")

    def insert(self, t: Table, n: int) -> None:
        self.insert_rows(t, [self.row_values(t, self.new_key(t)) for _ in range(n)])

    def insert_key(self, t: Table, key: list[str]) -> None:
        self.insert_rows(t, [self.row_values(t, key)])

    def row_values(self, t: Table, key: list[str]) -> str:
        vals = key + [self.literal(t, name, c) if name != "rev" else "0" for name, c in t.cols.items()]
        return "(" + ", ".join(vals) + ")"

    def insert_rows(self, t: Table, rows: list[str]) -> None:
        cols = ", ".join(self.q(c) for c in t.all_cols())
        self.run(f"INSERT INTO {self.qt(t)} ({cols}) VALUES {', '.join(rows)}")

    def pick(self, t: Table) -> dict | None:
        rows = self.rows(t)
        if not rows:
            return None
        rows.sort(key=lambda row: repr([row[c] for c in t.key_cols()]))
        return self.r.choice(rows)

    def update(self, t: Table) -> None:
        row = self.pick(t)
        if row is None:
            return self.insert(t, 1)
        self.update_row(t, row)

    def update_row(self, t: Table, row: dict) -> None:
        names = [n for n in t.cols if n != "rev" and not n.startswith("x")]
        sets = [f"{self.q('rev')} = {self.q('rev')} + 1"]
        for n in self.r.sample(names, k=min(len(names), self.r.randint(0, 2))):
            if t.cols[n].kind != "toast" or self.r.random() < 0.5:
                sets.append(f"{self.q(n)} = {self.literal(t, n, t.cols[n])}")
        for n in [n for n in t.cols if n.startswith("x")]:
            if self.r2.random() < 0.4:
                sets.append(f"{self.q(n)} = {self.literal(t, n, t.cols[n])}")
        self.run(f"UPDATE {self.qt(t)} SET {', '.join(sets)} WHERE {self.where(t, row)}")

    def rekey(self, t: Table) -> None:
        row = self.pick(t)
        if row is None or t.key == "none":
            return self.update(t)
        new = self.new_key(t)
        sets = [f"{self.q(c)} = {v}" for c, v in zip(t.key_cols(), new, strict=True)]
        sets.append(f"{self.q('rev')} = {self.q('rev')} + 1")
        self.run(f"UPDATE {self.qt(t)} SET {', '.join(sets)} WHERE {self.where(t, row)}")

    def delete(self, t: Table) -> None:
        row = self.pick(t)
        if row is not None:
            self.run(f"DELETE FROM {self.qt(t)} WHERE {self.where(t, row)}")

    def add_column(self, t: Table) -> None:
        pool = PG_COLS if self.w.db == "pg" else MARIADB_COLS
        # MariaDB: a JSON column added while the emulator streams crashed it (its rows were read as MySQL's
        # binary JSON: "Json type 34 is not handled"), a capture bug left to the capture side
        c = self.r.choice([c for c in pool if c.sql != "JSON"])
        second = self.r2.random() < 0.3
        if (
            second
        ):  # no DEFAULT for them: what Debezium's schema carries as their default is not reasoned here
            c = self.r2.choice(more_pool(self.w.db))
        t.added += 1
        name = f"a{t.added}"
        if self.w.db == "pg" and c.sql in EXTENSIONS:  # setup created only the extensions its tables used
            self.run(f"CREATE EXTENSION IF NOT EXISTS {c.sql} SCHEMA public")
        ddl = f"ALTER TABLE {self.qt(t)} ADD COLUMN {self.q(name)} {c.sql}"
        # not for char(n): Debezium's Connect default of DEFAULT 'ab' is "ab", the rows hold it blank-padded
        # (the sink backfills the rows before the ADD with the Connect default: docs/sink.md "Sink campaign")
        # nor for bytea/BLOB and arrays: Debezium's schema carries no default for them, nothing to backfill with
        plain = c.kind not in ("bin", "arr") and not c.sql.lower().startswith("char")
        if self.r.random() < 0.5 and "DEFAULT" not in c.sql and plain and not second:
            ddl += f" DEFAULT {c.values[0]}"
            t.defaults.add(name)
        self.run(ddl)
        t.cols[name] = c

    def drop_column(self, t: Table) -> None:
        names = [n for n in t.cols if n != "rev" and not n.startswith("x")]
        if len(names) < 2:
            return self.add_column(t)
        name = self.r.choice(names)
        xs = [n for n in t.cols if n.startswith("x")]
        if xs and self.r2.random() < 0.3:
            name = self.r2.choice(xs)
        self.run(f"ALTER TABLE {self.qt(t)} DROP COLUMN {self.q(name)}")
        del t.cols[name]

    def truncate(self, t: Table) -> None:
        self.run(f"TRUNCATE TABLE {self.qt(t)}")

    # -- the workload ------------------------------------------------------------------------------------
    def setup(self) -> None:
        if self.w.db == "pg":
            self.run("CREATE TYPE public.mood AS ENUM ('sad', 'ok', 'happy')")
            for ext in EXTENSIONS:
                if any(c.sql == ext for t in self.w.tables for c in t.cols.values()):
                    self.run(f"CREATE EXTENSION IF NOT EXISTS {ext} SCHEMA public")
        else:
            self.run("SET SESSION sql_mode = ''")  # zero dates accepted (also in columns added later)
        for t in self.w.tables:
            self.create(t)
            if self.r.random() < 0.85:
                self.insert(t, self.r.randint(1, 6))

    def snapshot_baseline(self) -> None:
        for t in self.w.tables:
            self.oracle.baseline(t.name, self.keyed(t))

    def stream(self, n: int) -> None:
        ops = ["insert"] * 4 + ["update"] * 5 + ["rekey", "delete", "delete", "tx", "ddl"]
        if self.w.focus == "keyless-drop":
            ops += ["ddl", "ddl"]
        if not self.w.unwrap:
            ops.append("truncate")
        for _ in range(n):
            t = self.r.choice(self.w.tables)
            op = self.r.choice(ops)
            if op == "tx":
                self.transaction(t)
                continue
            if op == "ddl":
                add = self.r.random() < (0.3 if self.w.focus == "keyless-drop" else 0.6)
                (self.add_column if add else self.drop_column)(t)
                self.oracle.last[t.name] = self.keyed(t)  # no events: a new baseline for the diffs
                continue
            if op == "truncate" and self.r.random() < 0.4:
                self.truncate(t)
                self.oracle.step(t.name, {}, truncate=True)
                continue
            self.dml(t, op)
            self.oracle.step(t.name, self.keyed(t))
            if self.r3 is not None and self.r3.random() < 0.25:
                self.extra()

    def extra(self) -> None:
        """`sink_campaign_shapes.extra`, with this runner's stream and ids swapped for its own."""
        assert self.r3 is not None
        r, self.r = self.r, self.r3
        self.next_id, self.extra_id = self.extra_id, self.next_id
        try:
            shapes.extra(self, self.r3)
        finally:
            self.r = r
            self.next_id, self.extra_id = self.extra_id, self.next_id

    def dml(self, t: Table, op: str) -> None:
        if op == "insert":
            self.insert(t, self.r.randint(1, 3))
        elif op == "update" or op == "truncate":
            self.update(t)
        elif op == "rekey":
            self.rekey(t)
            if t.key != "none" and self.w.statements[-1].startswith("UPDATE"):
                new = self.keyed(t).keys() - self.oracle.last[t.name].keys()
                self.oracle.key_changed[t.name].update(new)
        else:
            self.delete(t)

    def transaction(self, t: Table) -> None:
        """A few changes of one table in one transaction; each read back inside it (its own changes are
        visible to it), so the oracle still has every version."""
        self.run("BEGIN" if self.w.db == "pg" else "START TRANSACTION")
        for _ in range(self.r.randint(2, 4)):
            self.dml(t, self.r.choice(["insert", "update", "update", "rekey", "delete"]))
            self.oracle.step(t.name, self.keyed(t))
        self.run("COMMIT")
