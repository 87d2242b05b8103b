"""MariaDB draws for the workload generator (emulator.testing.workloads_mariadb) toward what users configure:
message.key.columns, table / database filters in another case or partial, snapshot statement overrides,
incremental-snapshot signals with their options.

Scenarios are `scenario(rng, s, t)` like workloads_mariadb's; `props(rng, kinds)` and `signal(rng)` are
drawn once per workload by `generate`. The first scenario is always `types0` (table inventory.types0 with
an INT `id` key holding 1, 2, 3, 5, 6 after the stream).
"""

from __future__ import annotations

import json
import random
from typing import Any

from emulator.testing import workloads_mariadb_dml


def keycols_props(rng: random.Random, t: str) -> str:
    """message.key.columns for the keycols scenario's tables: exact names, a column regex, a name in
    another case, a table regex in another case, a column the table lacks, two entries for one table."""
    nk_cols = rng.choice(["code", "id,code", "code,id", "CODE", "k.*", "(id|code)"])
    pk_cols = rng.choice(["code", "k2,code", "nope", "CODE,id", "c.de"])
    nk_tab = rng.choice([f"inventory\\.{t}_nk", f"INVENTORY\\.{t.upper()}_NK", f".*\\.{t}_nk"])
    entries = [f"{nk_tab}:{nk_cols}", f"inventory\\.{t}_pk:{pk_cols}"]
    if rng.random() < 0.3:
        entries.append(f"inventory\\.{t}_p.:v")
    return ";".join(entries)


def keycols(rng: random.Random, s: Any, t: str) -> None:
    s.pre.append(f"CREATE TABLE {t}_nk (id INT NOT NULL, code VARCHAR(8), kx INT, v TEXT);")
    s.pre.append(f"INSERT INTO {t}_nk VALUES (1, 'a', 10, 'one'), (2, 'b', 20, 'two');")
    s.pre.append(f"CREATE TABLE {t}_pk (id INT PRIMARY KEY, code VARCHAR(8) NOT NULL, k2 INT, v TEXT);")
    s.pre.append(f"INSERT INTO {t}_pk VALUES (1, 'a', 1, 'one'), (2, 'b', 2, 'two');")
    s.props["message.key.columns"] = keycols_props(rng, t)
    s.stream += [
        f"INSERT INTO {t}_nk VALUES (3, 'c', 30, 'three');",
        f"UPDATE {t}_nk SET v = 'uno' WHERE id = 1;",
        f"UPDATE {t}_nk SET code = 'bb' WHERE id = 2;",
        f"DELETE FROM {t}_nk WHERE id = 3;",
        f"INSERT INTO {t}_pk VALUES (3, 'c', 3, 'three');",
        f"UPDATE {t}_pk SET v = 'uno' WHERE id = 1;",
        f"UPDATE {t}_pk SET code = 'bb' WHERE id = 2;",
        f"UPDATE {t}_pk SET id = 9 WHERE id = 3;",
        f"DELETE FROM {t}_pk WHERE id = 9;",
    ]


# key column types with a default and three values (the last one the default): (type, default, values)
_KEY_DEFAULTS = [
    ("VARCHAR(8)", "'dflt'", ["'a'", "'b'", "'dflt'"]),
    ("INT UNSIGNED", "7", ["1", "4294967295", "7"]),
    ("DECIMAL(6,2)", "1.50", ["2.25", "-3.00", "1.50"]),
    (
        "DATETIME(3)",
        "'2020-01-02 03:04:05.678'",
        ["'2021-01-01 00:00:00'", "'1999-12-31 23:59:59.999'", "'2020-01-02 03:04:05.678'"],
    ),
    ("DATE", "'2024-01-15'", ["'2020-02-02'", "'1000-01-01'", "'2024-01-15'"]),
    ("TIME(2)", "'10:11:12.50'", ["'-01:00:00'", "'838:59:59'", "'10:11:12.50'"]),
    ("ENUM('a','b','c')", "'b'", ["'a'", "'c'", "'b'"]),
    ("BIT(3)", "b'101'", ["b'001'", "b'111'", "b'101'"]),
    ("BIGINT", "-1", ["9223372036854775807", "0", "-1"]),
    ("CHAR(3) CHARACTER SET latin1", "'äb'", ["'x'", "'yz'", "'äb'"]),
]


def keynulls(rng: random.Random, s: Any, t: str) -> None:
    """message.key.columns on a nullable column with a default (and the primary key beside it, or not):
    a NULL there prints the default in the key, key changes to and from NULL (and to the default) give
    __debezium.oldkey/newkey headers. Drawn by `generate` from a random stream of its own."""
    typ, dflt, (v1, v2, vd) = rng.choice(_KEY_DEFAULTS)
    s.pre.append(f"CREATE TABLE {t} (id INT PRIMARY KEY, g {typ} DEFAULT {dflt}, v INT);")
    s.pre.append(f"INSERT INTO {t} VALUES (1, NULL, 1), (2, {v1}, 2);")
    s.props["message.key.columns"] = f"inventory\\.{t}:" + rng.choice(["g", "g,id", "id,g"])
    s.stream += [
        f"INSERT INTO {t} VALUES (3, NULL, 3);",
        f"UPDATE {t} SET g = NULL WHERE id = 2;",
        f"UPDATE {t} SET v = 30 WHERE id = 3;",
        f"UPDATE {t} SET g = {v2} WHERE id = 1;",
        f"UPDATE {t} SET g = {vd} WHERE id = 3;",
        f"DELETE FROM {t} WHERE id = 1;",
    ]


def renames(rng: random.Random, s: Any, t: str) -> None:
    """RENAME TABLE chains (a swap through a temporary name, a rename and back, a cycle of three) and CONVERT
    TO CHARACTER SET among other ALTER specs, with rows written between them. Drawn by `generate` from a
    random stream of its own."""
    s.pre.append(f"CREATE TABLE {t}_a (id INT PRIMARY KEY, v VARCHAR(10) DEFAULT 'a');")
    s.pre.append(f"CREATE TABLE {t}_b (id INT PRIMARY KEY, w TEXT, n INT);")
    s.pre.append(f"INSERT INTO {t}_a VALUES (1, 'a1');")
    s.pre.append(f"INSERT INTO {t}_b VALUES (1, 'b1', 1);")
    a, b, x = f"{t}_a", f"{t}_b", f"{t}_x"
    chain = rng.choice(
        [
            f"RENAME TABLE {a} TO {x}, {b} TO {a}, {x} TO {b};",
            f"RENAME TABLE {a} TO {x}, {x} TO {a};",
            f"RENAME TABLE {a} TO {x}, {b} TO {a}, {x} TO {t}_c, {t}_c TO {b};",
        ]
    )
    convert = rng.choice(
        [
            f"ALTER TABLE {b} ADD COLUMN z VARCHAR(5) DEFAULT 'z', CONVERT TO CHARACTER SET latin1;",
            f"ALTER TABLE {b} CONVERT TO CHARACTER SET latin1 COLLATE latin1_bin, ADD COLUMN z CHAR(2);",
            f"ALTER TABLE {b} ADD INDEX {t}_ix (id), CONVERT TO CHARSET utf8mb3, ADD CONSTRAINT {t}_ck CHECK (id > 0);",
        ]
    )
    s.stream += [
        f"INSERT INTO {a} VALUES (2, 'a2');",
        chain,
        f"INSERT INTO {a} (id) VALUES (3);",
        f"INSERT INTO {b} (id) VALUES (4);",
        convert,
        f"INSERT INTO {b} (id) VALUES (5);",
        f"UPDATE {b} SET id = 6 WHERE id = 1;",
    ]


# (binlog_row_image MINIMAL/NOBLOB set by a session was drawn once: Debezium stops at the first rows event
# lacking a column, and so does the emulator now - case mariadb/cases/binlog_row_image_session_stops; a draw
# that ends every recording early hides the rest of the workload, so it is no longer drawn)
SCENARIOS: dict[str, Any] = {"keycols": keycols}


def props(rng: random.Random) -> dict[str, str]:
    """Filters and snapshot options over the types0 table (the first scenario's)."""
    out: dict[str, str] = {}
    form = rng.choice(["include", "include_partial", "exclude", "database", "overrides", "snapshot_include"])
    if form == "include":
        out["table.include.list"] = "INVENTORY\\.TYPES0,inventory\\.debezium_signal"
    elif form == "include_partial":
        out["table.include.list"] = "inventory\\.types0,types.*,inventory\\.debezium_signal"
    elif form == "exclude":
        out["table.exclude.list"] = rng.choice(["inventory\\.[a-s].*[1-9]", "INVENTORY\\.T.*[1-9]", "types0"])
    elif form == "database":
        out["database.include.list"] = rng.choice(["INVENTORY", "inv.*", "inventory,nosuch"])
    elif form == "overrides":
        out["snapshot.select.statement.overrides"] = "inventory.types0"
        out["snapshot.select.statement.overrides.inventory.types0"] = rng.choice(
            ["SELECT * FROM inventory.types0 WHERE id > 1", "SELECT * FROM inventory.types0 ORDER BY id DESC"]
        )
    else:
        out["snapshot.include.collection.list"] = "INVENTORY\\.TYPES0"
    return out


def signal(rng: random.Random, tables: list[str]) -> str:
    """An execute-snapshot signal for types0 (and another table with an `id`): several tables,
    additional-conditions, a surrogate key."""
    form = rng.choice(["plain", "several", "conditions", "surrogate"])
    picked = ["inventory.types0"] + (rng.sample(tables, k=1) if form == "several" and tables else [])
    data: dict[str, Any] = {"data-collections": picked, "type": "incremental"}
    if form == "conditions":
        data["additional-conditions"] = [
            {"data-collection": "inventory.types0", "filter": rng.choice(["id >= 2", "id > 0 AND id < 6"])}
        ]
    elif form == "surrogate":
        data["surrogate-key"] = "id"
    text = json.dumps(data).replace("\\", "\\\\").replace("'", "''")
    return f"INSERT INTO debezium_signal (id, type, data) VALUES ('incr-1', 'execute-snapshot', '{text}');\n"


def without_tx(seed: int, props: dict[str, str]) -> None:
    """Without transaction metadata in ~40 % of seeds (where nothing else set it): Debezium's default, and the only
    case in which rows take the binlog line path (`mysql/stream_lines.py`), while the harness's own default is on
    (session 12: campaigns had only reached that path through the converter draws). A random stream of its own,
    so every other draw of a seed stays as it was."""
    if random.Random(f"notx-{seed}").random() < 0.4:
        props.setdefault("provide.transaction.metadata", "false")


def parallel_snapshot(seed: int, props: dict[str, str], scenarios: list[Any]) -> None:
    """snapshot.max.threads=2 in ~30 % of seeds (session 13), a random stream of its own: Debezium's chunked
    parallel snapshot and the emulator's forked readers (the harness compares each topic's snapshot reads in
    key order: Debezium's threads interleave a table's chunks). Not beside `keynulls`, nor beside the converter
    scenario's zero-date key table (`convs*_k`): Debezium bounds its chunks by key comparisons, which a NULL in a
    message.key.columns column never satisfies, and it reads a zero date of a key as NULL (Connector/J's
    CONVERT_TO_NULL), so it loses those rows (deliberate differences, cases snapshot_threads_null_key_lost and
    snapshot_threads_zero_date_key_lost)."""
    for s in scenarios:
        zero_key = any(x.startswith(f"INSERT INTO {s.name}_k ") and "'0000-00-00'" in x for x in s.pre)
        if s.name.startswith("keynulls") or zero_key:
            return
    if random.Random(f"threads-{seed}").random() < 0.3:
        props["snapshot.max.threads"] = "2"  # (no other draw sets it)


# (session 14) properties users commonly set that no other draw sets, with values the harness can compare
USER_SETTINGS: list[tuple[str, list[str]]] = [
    ("include.query", ["true"]),  # the statement of each rows event in source.query (MariaDB's ANNOTATE_ROWS)
    ("topic.transaction", ["txn", "tx.meta"]),  # (no effect without transaction metadata)
    ("snapshot.locking.mode", ["none", "extended"]),  # (values both binlog connectors take)
    ("incremental.snapshot.chunk.size", ["2", "1024"]),  # (the harness's default is 5)
]


def user_settings(seed: int, props: dict[str, str]) -> None:
    """One or two of USER_SETTINGS in ~35 % of seeds (where no other draw set them), a random stream of its own."""
    r = random.Random(f"settings-{seed}")
    if r.random() >= 0.35:
        return
    free = [(k, vals) for k, vals in USER_SETTINGS if k not in props]
    for k, vals in r.sample(free, k=min(len(free), r.randint(1, 2))):
        props[k] = r.choice(vals)


def late_draws(seed: int, props: dict[str, str], scenarios: list[Any]) -> None:
    """The draws added after the others, each from a random stream of its own (old seeds keep the rest)."""
    without_tx(seed, props)
    parallel_snapshot(seed, props, scenarios)
    user_settings(seed, props)
    on_update(seed, scenarios)
    workloads_mariadb_dml.dml_draw(seed, scenarios)  # (session 16)
    if random.Random(f"always-{seed}").random() < 0.1:
        # (session 16) the one binlog snapshot.mode a single run can show that no other draw sets: `always` (snapshots
        # at every start; `recovery` on a first start stops both, "Could not find existing redo log information")
        props.setdefault("snapshot.mode", "always")


class _Scenario:
    def __init__(self, name: str) -> None:
        self.name, self.pre, self.stream, self.props = name, [], [], {}


def on_update(seed: int, scenarios: list[Any]) -> None:
    """(session 15) `ON UPDATE CURRENT_TIMESTAMP` columns, common in MySQL schemas and drawn by nothing else
    (Debezium marks them autoIncremented and generated), in the snapshot's DDL and in streamed CREATE/ALTER, in
    ~30 % of seeds, a random stream of its own. Every written row sets those columns itself: a value the server
    picks at update time would differ between the two recordings."""
    r = random.Random(f"onupdate-{seed}")
    if r.random() >= 0.3:
        return
    s = _Scenario(t := f"onupd{len(scenarios)}")
    prec = r.choice(["", "(3)", "(6)"])  # (NOW takes parentheses; a precision must be the column's)
    now = r.choice(["CURRENT_TIMESTAMP", "LOCALTIMESTAMP"]) + (prec or r.choice(["", "()"]))
    now = r.choice([now, f"NOW({prec[1:-1]})"])
    s.pre += [
        f"CREATE TABLE {t} (id INT PRIMARY KEY, v VARCHAR(10), ts TIMESTAMP{prec} NOT NULL DEFAULT "
        f"CURRENT_TIMESTAMP{prec} ON UPDATE {now}, dt DATETIME{prec} NULL ON UPDATE {now});",
        f"INSERT INTO {t} VALUES (1, 'a', '2024-01-02 03:04:05', NULL), (2, 'b', '2024-01-02 03:04:06', "
        "'2023-05-06 07:08:09');",
    ]
    s.stream += [
        f"UPDATE {t} SET v = 'aa', ts = '2024-02-03 04:05:06', dt = '2024-02-03 04:05:07' WHERE id = 1;",
        f"ALTER TABLE {t} ADD COLUMN c TIMESTAMP NULL ON UPDATE CURRENT_TIMESTAMP, MODIFY dt DATETIME{prec} NULL;",
        f"CREATE TABLE {t}_b (id INT PRIMARY KEY, a DATETIME ON UPDATE {r.choice(['NOW()', 'LOCALTIME'])}, "
        "b TIMESTAMP NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP);",
        f"INSERT INTO {t}_b VALUES (1, '2020-01-01 00:00:00', NULL);",
    ]
    scenarios.append(s)
