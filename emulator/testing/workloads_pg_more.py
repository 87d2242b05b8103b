"""More PostgreSQL scenarios for the workload generator (emulator.testing.workloads): keys of unusual types.

Each is `scenario(g, name)` with `g` the generator's `PgGen` (its random source, `q`, `block`,
`snapshot_tables`), like PgGen's own methods; `workloads.SCENARIOS` names them beside those.
"""

from __future__ import annotations

from typing import Any

# (type, two distinct key values) for key columns: each type has a btree operator class
KEY_TYPES: list[tuple[str, list[str]]] = [
    ("uuid", ["'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'00000000-0000-0000-0000-000000000000'"]),
    ("timestamptz", ["'2021-03-04 05:06:07.123456+02'", "'infinity'"]),
    ("timestamp(3)", ["'1999-12-31 23:59:59.999'", "'2000-01-01 00:00:00'"]),
    ("numeric(10,3)", ["-12.345", "0.001"]),
    ("numeric", ["123456789012345678901234567890.5", "-1"]),
    ("text", ["'ä b'", "''"]),
    ("varchar(5)", ["'abc'", "'Z'"]),
    ("char(3)", ["'x'", "'xyz'"]),
    ("bytea", ["'\\x00ff'", "'\\x'"]),
    ("date", ["'2020-02-29'", "'-infinity'"]),
    ("time(2)", ["'23:59:59.99'", "'00:00:00'"]),
    ("timetz", ["'12:00:00+05:30'", "'00:00:01-08'"]),
    ("interval", ["'1 year 2 mons'", "'-3 days'"]),
    ("inet", ["'10.0.0.1/8'", "'::1'"]),
    ("macaddr", ["'08:00:2b:01:02:03'", "'00:00:00:00:00:00'"]),
    ("boolean", ["true", "false"]),
    ("smallint", ["-32768", "32767"]),
    ("bigint", ["-9223372036854775808", "9223372036854775807"]),
    ("real", ["1.5", "-0.25"]),
    ("double precision", ["1e300", "-2.5"]),
    ("money", ["12.34::money", "(-0.01)::money"]),
    ("bit(4)", ["B'1010'", "B'0001'"]),
    ("oid", ["4294967295", "1"]),
]


def oddkeys(g: Any, name: str) -> None:
    """A composite primary key over one or two columns of unusual types, key updates of one part, a
    delete, REPLICA IDENTITY FULL or DEFAULT; sometimes range-partitioned by a date part (rows move)."""
    r = g.r
    (t1, v1), (t2, v2) = r.sample(KEY_TYPES, k=2)
    tbl = f"public.{name}"
    ident = r.choice(["DEFAULT", "FULL"])
    if r.random() < 0.3:
        pre = (
            f"CREATE TABLE {tbl} (k1 {t1} NOT NULL, d date NOT NULL, v text, PRIMARY KEY (k1, d)) "
            "PARTITION BY RANGE (d);\n"
            f"CREATE TABLE public.{name}_old PARTITION OF {tbl} FOR VALUES FROM (MINVALUE) TO ('2020-01-01');\n"
            f"CREATE TABLE public.{name}_new PARTITION OF {tbl} FOR VALUES FROM ('2020-01-01') TO (MAXVALUE);\n"
            f"INSERT INTO {tbl} VALUES ({v1[0]}, '2019-05-05', 'a'), ({v1[1]}, '2021-05-05', 'b');\n"
        )
        steps = [
            f"INSERT INTO {tbl} VALUES ({v1[0]}, '2022-01-01', 'c');\n"
            f"UPDATE {tbl} SET d = '2023-03-03' WHERE d = '2019-05-05';\n"  # moves between partitions
            f"UPDATE {tbl} SET v = 'bb' WHERE d = '2021-05-05';\n"
            f"DELETE FROM {tbl} WHERE d = '2022-01-01';"
        ]
    else:
        pre = (
            f"CREATE TABLE {tbl} (k1 {t1} NOT NULL, k2 {t2} NOT NULL, v text, PRIMARY KEY (k1, k2));\n"
            f"ALTER TABLE {tbl} REPLICA IDENTITY {ident};\n"
            f"INSERT INTO {tbl} VALUES ({v1[0]}, {v2[0]}, 'a'), ({v1[1]}, {v2[0]}, 'b');\n"
        )
        steps = [
            f"INSERT INTO {tbl} VALUES ({v1[0]}, {v2[1]}, 'c');\n"
            f"UPDATE {tbl} SET v = 'aa' WHERE k1 = {v1[0]} AND k2 = {v2[0]};\n"
            f"UPDATE {tbl} SET k2 = {v2[1]} WHERE k1 = {v1[1]};\n"
            f"DELETE FROM {tbl} WHERE k1 = {v1[0]} AND k2 = {v2[1]};",
            f"BEGIN;\nUPDATE {tbl} SET k1 = {v1[1]}, v = NULL WHERE k1 = {v1[0]};\n"
            f"INSERT INTO {tbl} VALUES ({v1[0]}, {v2[0]}, 'back');\nCOMMIT;",
        ]
    g.snapshot_tables.append(tbl)
    g.block(name, pre, steps)


EXTRA: dict[str, Any] = {"oddkeys": oddkeys}
