"""snapshot.max.threads > 1 on MariaDB tables larger than one read of the parallel plan (the recorded case
tests/data/mariadb/cases/snapshot_max_threads has tables of <= 3 rows). Expected values are written by hand
from Debezium 3.6's chunked snapshot (docs/parallel-snapshot.md): a keyed table of two or more rows in key
order - here across several key-range reads, a composite key's cascading bounds included - a keyless table
in the plain query's order, the single-threaded markers over that order. MyISAM keeps the rows in insertion
order, which is made different from key order."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from emulator_proc import EmulatorProcess

from emulator.testing import mariadbserver

pytestmark = pytest.mark.skipif(
    not mariadbserver.available(),
    reason="MariaDB server binaries not installed (scripts/setup.sh installs them)",
)

N_BIG = 9_000  # more than one read (PIECE_ROWS = 8192)
N_COMP = 3_000  # per value of the first key column: 9,000 rows

SETUP = f"""
CREATE DATABASE par;
USE par;
CREATE TABLE a_big (id INT PRIMARY KEY, v VARCHAR(20) NOT NULL) ENGINE=MyISAM;
INSERT INTO a_big SELECT seq, CONCAT('v', seq) FROM seq_1_to_{N_BIG} ORDER BY MD5(seq);
CREATE TABLE b_comp (a VARCHAR(5), b INT, PRIMARY KEY (a, b)) ENGINE=MyISAM;
INSERT INTO b_comp SELECT CHAR(ASCII('x') + seq % 3), seq DIV 3 FROM seq_0_to_{3 * N_COMP - 1} ORDER BY MD5(seq);
CREATE TABLE c_nokey (n INT);
INSERT INTO c_nokey SELECT seq FROM seq_1_to_300 ORDER BY MD5(seq);
CREATE TABLE d_empty (id INT PRIMARY KEY);
"""


def marks(n: int, first: str, last: str) -> list[str]:
    return [first] + ["true"] * (n - 2) + [last]


def test_chunked_snapshot_reads_keyed_tables_in_key_order(tmp_path):
    with mariadbserver.MariaDbServer() as db:
        db.sql(SETUP)
        assert [int(r[0]) for r in db.query("SELECT id, v FROM par.a_big LIMIT 3")] != [1, 2, 3]
        nokey = [{"n": int(r[0])} for r in db.query("SELECT n FROM par.c_nokey")]
        props = db.connector_properties(
            **{
                "database.include.list": "par",
                "topic.prefix": "p",
                "snapshot.mode": "initial_only",
                "snapshot.max.threads": "2",
                "include.schema.changes": "false",
                "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
            }
        )
        emu = EmulatorProcess(props, tmp_path).start()
        try:
            assert emu.proc.wait(120) == 0, emu.log_tail()
        finally:
            emu.kill()
    assert "snapshot with 2 readers (forked)" in emu.log_path.read_text()
    assert "they send lines" in emu.log_path.read_text()  # the directory output: LineBatch
    got: dict[str, list] = {}
    for r in emu.records():
        payload = r["value"]["payload"]
        got.setdefault(r["topic"].split(".")[-1], []).append(
            (payload["after"], payload["source"]["snapshot"])
        )
    assert got["a_big"] == list(
        zip(
            [{"id": i, "v": f"v{i}"} for i in range(1, N_BIG + 1)],
            marks(N_BIG, "first", "last_in_data_collection"),
        )
    )
    comp = [{"a": a, "b": b} for a in "xyz" for b in range(N_COMP)]
    assert got["b_comp"] == list(
        zip(comp, marks(len(comp), "first_in_data_collection", "last_in_data_collection"))
    )
    assert got["c_nokey"] == list(zip(nokey, marks(len(nokey), "first_in_data_collection", "last")))
    assert "d_empty" not in got


def test_piece_cuts_by_range_reads_are_the_row_numbers(tmp_path):
    """The cuts of a table keyed by its own index come from one short range read per cut (each from the last:
    `LIMIT 1 OFFSET PIECE_ROWS`); they must be the keys of rows PIECE_ROWS + 1, 2 x PIECE_ROWS + 1, ... in key
    order, what the ROW_NUMBER() query (still taken for message.key.columns) answers. Expected: the rows sorted
    here in Python."""
    import pymysql

    from emulator.connectors.mysql.snapshot import MySqlSnapshot
    from emulator.pipeline.snapshot_chunks import PIECE_ROWS

    n = 3 * PIECE_ROWS + 5  # three cuts
    with mariadbserver.MariaDbServer() as db:
        db.sql(
            "CREATE DATABASE cuts; USE cuts;"
            "CREATE TABLE t (a VARCHAR(5) NOT NULL, b INT NOT NULL, PRIMARY KEY (a, b)) ENGINE=MyISAM;"
            f"INSERT INTO t SELECT CHAR(ASCII('p') + seq % 4), seq DIV 4 FROM seq_0_to_{n - 1} ORDER BY MD5(seq);"
        )
        conn = pymysql.connect(host="127.0.0.1", port=db.port, user=db.user, password=db.password)
        try:

            class Snap(MySqlSnapshot):
                def _q(self, sql, args=None, conn=None):
                    with conn.cursor() as cur:
                        cur.execute(sql, args)
                        return list(cur.fetchall())

            def ct(key, own):
                cols = [
                    SimpleNamespace(name="a", type_name="VARCHAR"),
                    SimpleNamespace(name="b", type_name="INT"),
                ]
                table = SimpleNamespace(key_columns=key, extra={"primary_key": own})
                return SimpleNamespace(env=SimpleNamespace(table=table), table=SimpleNamespace(columns=cols))

            queries: list[str] = []
            snap = Snap()
            run = snap._q

            def noted(sql, args=None, conn=None):
                queries.append(sql)
                return run(sql, args, conn)

            snap._q = noted
            ranged = snap._cuts(conn, ct(["a", "b"], ["a", "b"]), "`cuts`.`t`", "`a`, `b`")
            assert len(queries) == 4 and all("OFFSET" in q for q in queries)  # one read per cut, one past
            numbered = snap._cuts(conn, ct(["b", "a"], ["a", "b"]), "`cuts`.`t`", "`b`, `a`")
            assert "ROW_NUMBER()" in queries[-1]
        finally:
            conn.close()
    rows = sorted((chr(ord("p") + i % 4), i // 4) for i in range(n))
    assert ranged == rows[PIECE_ROWS::PIECE_ROWS]
    assert numbered == sorted((b, a) for a, b in rows)[PIECE_ROWS::PIECE_ROWS]
