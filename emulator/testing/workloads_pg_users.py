"""PostgreSQL draws for the workload generator (emulator.testing.workloads) toward what users configure:
key and table/column/schema filters, tables created mid-stream, replica identity changed mid-stream,
user-defined types, and incremental-snapshot signals with their options.

Scenarios are `scenario(g, name)` like workloads_pg_more's; a scenario may add connector properties that
name only its own tables (`g.props`), so the minimizer running it alone keeps them meaningful.
`filter_props(r, picks)` and `signal(r, tables)` are drawn once per workload by `generate_pg`.
Only draws whose Debezium output is deterministic: no stop/pause signals racing the chunk reads.
"""

from __future__ import annotations

import json
import random
from typing import Any


def keycols(g: Any, name: str) -> None:
    """message.key.columns over a keyless table and a keyed one: exact names, a column regex, a name in
    another case, a table regex in another case, a column the table does not have (Debezium falls back to
    the primary key), two entries matching one table."""
    r = g.r
    nk, pk = f"public.{name}_nk", f"public.{name}_pk"
    pre = (
        f"CREATE TABLE {nk} (id integer NOT NULL, code varchar(8), Kx integer, v text);\n"
        f"ALTER TABLE {nk} REPLICA IDENTITY FULL;\n"
        f"INSERT INTO {nk} VALUES (1, 'a', 10, 'one'), (2, 'b', 20, 'two');\n"
        f"CREATE TABLE {pk} (id integer PRIMARY KEY, code varchar(8) NOT NULL, k2 integer, v text);\n"
        f"INSERT INTO {pk} VALUES (1, 'a', 1, 'one'), (2, 'b', 2, 'two');\n"
    )
    nk_cols = r.choice(["code", "id,code", "code,id", "CODE", "kx", "k.*", "(id|code)"])
    pk_cols = r.choice(["code", "k2,code", "nope", "CODE,id", "c.de"])
    nk_tab = r.choice([f"public\\.{name}_nk", f"PUBLIC\\.{name.upper()}_NK", f".*\\.{name}_nk"])
    entries = [f"{nk_tab}:{nk_cols}", f"public\\.{name}_pk:{pk_cols}"]
    if r.random() < 0.3:
        entries.append(f"public\\.{name}_p.:v")  # a second entry for the keyed table
    g.props["message.key.columns"] = ";".join(entries)
    steps = [
        f"INSERT INTO {nk} VALUES (3, 'c', 30, 'three');\nUPDATE {nk} SET v = 'uno' WHERE id = 1;\n"
        f"UPDATE {nk} SET code = 'bb' WHERE id = 2;\nDELETE FROM {nk} WHERE id = 3;",
        f"INSERT INTO {pk} VALUES (3, 'c', 3, 'three');\nUPDATE {pk} SET v = 'uno' WHERE id = 1;\n"
        f"UPDATE {pk} SET code = 'bb' WHERE id = 2;\nUPDATE {pk} SET id = 9 WHERE id = 3;\n"
        f"DELETE FROM {pk} WHERE id = 9;",
    ]
    g.snapshot_tables += [pk]
    g.block(name, pre, steps)


def latetable(g: Any, name: str) -> None:
    """Tables created mid-stream (under a FOR ALL TABLES publication Debezium sees them at once; a filtered
    publication is made at start), written, altered and dropped."""
    r = g.r
    tbl = f"public.{name}"
    pre = f"CREATE TABLE {tbl} (id integer PRIMARY KEY, v text);\nINSERT INTO {tbl} VALUES (1, 'one');\n"
    late = f"public.{name}_late"
    steps = [
        f"CREATE TABLE {late} (id integer PRIMARY KEY, n numeric(6,2), t text);\n"
        f"INSERT INTO {late} VALUES (1, 1.5, 'a'), (2, NULL, 'b');\nINSERT INTO {tbl} VALUES (2, 'two');",
        f"ALTER TABLE {late} ADD COLUMN extra integer DEFAULT 7;\nINSERT INTO {late} (id, t) VALUES (3, 'c');\n"
        f"UPDATE {late} SET t = 'aa' WHERE id = 1;\nDELETE FROM {late} WHERE id = 2;",
    ]
    if r.random() < 0.5:
        # the row and the DROP in one transaction (session 14; seed 44100006 raced): pgoutput sends the row's
        # Relation message after the commit, so both engines find the table gone when they read its key and
        # NOT NULL from the catalog (a null key, every field optional: pg case relation_catalog_changed_in_tx);
        # with the DROP committed on its own the answer depended on which engine read first
        steps.append(
            f"CREATE TABLE {late}2 (k text PRIMARY KEY) ;\nBEGIN;\nINSERT INTO {late}2 VALUES ('x');\n"
            f"DROP TABLE {late}2;\nCOMMIT;\nUPDATE {tbl} SET v = 'uno' WHERE id = 1;"
        )
    g.snapshot_tables.append(tbl)
    g.block(name, pre, steps)


def identity(g: Any, name: str) -> None:
    """REPLICA IDENTITY changed mid-stream: DEFAULT -> FULL -> USING INDEX -> NOTHING (inserts only: PostgreSQL
    refuses updates of such a table under a publication that publishes them) -> DEFAULT."""
    r = g.r
    tbl = f"public.{name}"
    pre = (
        f"CREATE TABLE {tbl} (id integer PRIMARY KEY, u integer NOT NULL, v text, w integer);\n"
        f"CREATE UNIQUE INDEX {name}_u ON {tbl} (u);\n"
        f"INSERT INTO {tbl} VALUES (1, 1, 'a', 1), (2, 2, 'b', 2), (3, 3, 'c', 3);\n"
    )
    forms = ["FULL", f"USING INDEX {name}_u", "DEFAULT", "NOTHING"]
    steps = []
    n = 10
    for ident in r.sample(forms, k=r.randint(2, 4)):
        body = f"ALTER TABLE {tbl} REPLICA IDENTITY {ident};\nINSERT INTO {tbl} VALUES ({n}, {n}, 'n', {n});"
        if ident != "NOTHING":
            body += (
                f"\nUPDATE {tbl} SET v = 'u{n}' WHERE id = 1;\nUPDATE {tbl} SET u = u + 100 WHERE id = 2;\n"
                f"UPDATE {tbl} SET id = {n + 1} WHERE id = {n};\nDELETE FROM {tbl} WHERE id = {n + 1};"
            )
        else:
            body += f"\nALTER TABLE {tbl} REPLICA IDENTITY DEFAULT;\nUPDATE {tbl} SET w = 0 WHERE id = 3;"
        steps.append(body)
        n += 10
    g.snapshot_tables.append(tbl)
    g.block(name, pre, steps)


def udt(g: Any, name: str) -> None:
    """User-defined types: a composite type, domains over arrays and over a domain, an enum with values
    added mid-stream, an enum created mid-stream for a column added then."""
    r = g.r
    tbl = f"public.{name}"
    pre = (
        f"CREATE TYPE public.{name}_pt AS (x integer, y text);\n"
        f"CREATE DOMAIN public.{name}_ia AS integer[];\n"
        f"CREATE DOMAIN public.{name}_ta AS text[] CHECK (cardinality(VALUE) < 5);\n"
        f"CREATE DOMAIN public.{name}_pos AS integer CHECK (VALUE > 0);\n"
        f"CREATE DOMAIN public.{name}_pos2 AS public.{name}_pos;\n"
        f"CREATE TYPE public.{name}_e AS ENUM ('a', 'b');\n"
        f"CREATE TABLE {tbl} (id integer PRIMARY KEY, ia public.{name}_ia, ta public.{name}_ta, "
        f"p2 public.{name}_pos2, e public.{name}_e, ea public.{name}_e[]"
        + (f", pt public.{name}_pt" if r.random() < 0.5 else "")
        + ");\n"
        f"INSERT INTO {tbl} (id, ia, ta, p2, e, ea) VALUES (1, '{{1,2}}', '{{x,\"y z\"}}', 5, 'a', '{{a,b}}'), "
        f"(2, NULL, '{{}}', NULL, NULL, NULL);\n"
    )
    steps = [
        f"ALTER TYPE public.{name}_e ADD VALUE 'c';\nALTER TYPE public.{name}_e ADD VALUE 'a0' BEFORE 'b';",
        f"INSERT INTO {tbl} (id, ia, ta, p2, e, ea) VALUES (3, '{{3}}', '{{q}}', 7, 'c', '{{c,a0}}');\n"
        f"UPDATE {tbl} SET e = 'a0', ia = '{{}}' WHERE id = 1;",
        f"CREATE TYPE public.{name}_e2 AS ENUM ('p', 'q');\nALTER TABLE {tbl} ADD COLUMN e2 public.{name}_e2;\n"
        f"CREATE DOMAIN public.{name}_da AS date[];\nALTER TABLE {tbl} ADD COLUMN da public.{name}_da;",
        f"INSERT INTO {tbl} (id, e2, da) VALUES (4, 'q', '{{2024-01-01}}');\nDELETE FROM {tbl} WHERE id = 2;",
    ]
    g.snapshot_tables.append(tbl)
    g.block(name, pre, steps)


EXTRA_USERS: dict[str, Any] = {"keycols": keycols, "latetable": latetable, "identity": identity, "udt": udt}

# key column types with a default and three values (the last one the default): (type, default, values)
_KEY_DEFAULTS = [
    ("integer", "7", ["1", "2", "7"]),
    ("text", "'dflt'", ["'a'", "'b'", "'dflt'"]),
    ("numeric(6,2)", "1.50", ["2.25", "3.00", "1.50"]),
    ("numeric", "1.5", ["2.25", "-3", "1.5"]),
    ("date", "'2024-01-15'", ["'2020-02-02'", "'2021-03-03'", "'2024-01-15'"]),
    (
        "timestamptz",
        "'2024-01-15 10:00:00+00'",
        ["'2020-02-02 01:02:03+02'", "'2021-03-03 00:00:00Z'", "'2024-01-15 10:00:00+00'"],
    ),
    ("time(3)", "'10:11:12.5'", ["'00:00:01'", "'23:59:59.999'", "'10:11:12.5'"]),
    (
        "uuid",
        "'00000000-0000-0000-0000-00000000000a'",
        [
            "'00000000-0000-0000-0000-000000000001'",
            "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
            "'00000000-0000-0000-0000-00000000000a'",
        ],
    ),
    ("bigint", "-1", ["9223372036854775807", "0", "-1"]),
    ("boolean", "true", ["false", "false", "true"]),
]
# arrays whose element schema is required (a NULL element makes the whole array null in Debezium)
_REQUIRED_ELEMENT_ARRAYS = [("tsvector[]", "'{\"a b\",NULL}'"), ("tsvector[]", "'{NULL}'")]


def keynulls(g: Any, name: str, r: random.Random) -> None:
    """NULLs in key fields whose column has a default (a nullable unique-index key under REPLICA IDENTITY
    FULL): the key prints the default, key changes to and from NULL (and to the default) give
    __debezium.oldkey/newkey headers; an enum[] / tsvector[] with NULL elements beside it. Drawn from a random
    stream of its own (`r`): every seed drawn before it keeps its other draws."""
    tbl = f"public.{name}"
    typ, dflt, (v1, v2, vd) = r.choice(_KEY_DEFAULTS)
    two = r.random() < 0.4  # a second key column, NOT NULL
    cols = f"k {typ} DEFAULT {dflt}" + (", k2 integer NOT NULL DEFAULT 0" if two else "")
    arr_typ, arr_val = r.choice(_REQUIRED_ELEMENT_ARRAYS)
    pre = (
        f"CREATE TYPE public.{name}_e AS ENUM ('x', 'y');\n"
        f"CREATE TABLE {tbl} ({cols}, v text, w integer DEFAULT 3, ea public.{name}_e[], ta {arr_typ});\n"
        f"CREATE UNIQUE INDEX {name}_k ON {tbl} (k{', k2' if two else ''});\n"
        f"ALTER TABLE {tbl} REPLICA IDENTITY FULL;\n"
        f"INSERT INTO {tbl} (k, v, w, ea, ta) VALUES ({v1}, 'a', NULL, '{{x,NULL}}', {arr_val}), "
        f"(NULL, 'b', 1, '{{y}}', NULL);\n"
    )
    steps = [
        f"INSERT INTO {tbl} (k, v, ea) VALUES (NULL, 'n', '{{NULL}}');\nUPDATE {tbl} SET k = NULL WHERE v = 'a';",
        f"UPDATE {tbl} SET k = {v2} WHERE v = 'n';\nUPDATE {tbl} SET k = {vd}, ea = '{{x,y}}' WHERE v = 'a';\n"
        f"UPDATE {tbl} SET w = 5 WHERE v = 'b';\nDELETE FROM {tbl} WHERE v = 'b';",
    ]
    g.block(name, pre, steps)


def filter_props(r: random.Random, picks: list[str]) -> dict[str, str]:
    """Table / schema / column filters as users write them: regexes in another case (Debezium matches them
    case-insensitively), partial regexes (matched whole: they select nothing), a filtered publication.
    Scenario tables are public.s<i>_<kind>[...] (names: sometimes other schemas)."""
    form = r.choice(["include", "include_partial", "exclude", "exclude_partial", "schema", "columns"])
    props: dict[str, str] = {}
    if form == "include":
        props["table.include.list"] = "PUBLIC\\.S0_.*,public\\.debezium_signal" + (
            ",public\\.s1_.*" if len(picks) > 2 else ""
        )
    elif form == "include_partial":
        props["table.include.list"] = "public\\.s0_[a-z_]+.*,s1_.*,public\\.debezium_signal"
    elif form == "exclude":
        props["table.exclude.list"] = "public\\.S1_.*"
    elif form == "exclude_partial":
        props["table.exclude.list"] = "s0_.*,public\\.s1"
    elif form == "schema":
        props["schema.include.list"] = r.choice(["PUBLIC", "pub.*", "public,nosuch"])
    else:
        props["column.include.list"] = r.choice(
            ["public\\..*\\.(id|k|k1|k2|d|v|a|c[0-3]_.*)", "PUBLIC\\..*\\.(ID|V|C[0-4]_.*|K.*)"]
        )
    if form != "columns":  # a table or schema filter: the publication may be made of the tables it keeps
        if r.random() < 0.5:
            props["publication.autocreate.mode"] = "filtered"
    return props


def signal(r: random.Random, tables: list[str]) -> str | None:
    """An execute-snapshot signal: one or several tables, additional-conditions, a surrogate key. Tables
    are those with an integer `id` column holding 1 and 2 (oddkeys' are left out)."""
    # (a table with a GENERATED ... STORED column: Debezium skips its incremental snapshot, case
    # incremental_generated_column_skipped - both engines then wait for a read that never comes; campaign
    # seed 42002003)
    # (the keys scenario may drop its table's primary key: Debezium then skips it too, "the table has no
    # primary keys" - campaign seed 43300000)
    skip = ("oddkeys", "keycols", "generated", "_keys")
    cands = [t for t in tables if '"' not in t and not any(k in t for k in skip)]
    if not cands:
        return None
    form = r.choice(["plain", "several", "conditions", "surrogate", "conditions_several"])
    picked = r.sample(cands, k=min(len(cands), 2)) if "several" in form else [r.choice(cands)]
    data: dict[str, Any] = {"data-collections": picked, "type": "incremental"}
    if form.startswith("conditions"):
        data["additional-conditions"] = [
            {"data-collection": picked[0], "filter": r.choice(["id >= 2", "id > 0 AND id < 1000"])}
        ]
    elif form == "surrogate":
        data["surrogate-key"] = "id"
    text = json.dumps(data).replace("'", "''")
    return (
        "INSERT INTO public.debezium_signal (id, type, data) VALUES "
        f"('incr-1', 'execute-snapshot', '{text}');\n"
    )
