"""snapshot.select.statement.overrides on the binlog connectors: the statement runs as written and the captured
columns are picked from its rows by position, so its ORDER BY holds (mariadb cases
snapshot_override_excluded_order*, recorded from Debezium 3.6.3); a result column the table lacks stops the snapshot
as Debezium's ColumnUtils.toArray does (seen in a Debezium run: "Column 'extra' not found in result set")."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from emulator.connectors.mysql.snapshot_select import override_select, projected
from emulator.testing import mariadbserver


def test_projected_picks_length_encoded_fields_in_order() -> None:
    long = b"z" * 300  # a 0xFC two-byte length
    packet = b"\x01a" + b"\xfb" + b"\xfc\x2c\x01" + long + b"\x03xyz"
    got = projected(lambda data: data, [3, 1, 0, 2])(packet)
    assert got == b"\x03xyz" + b"\xfb" + b"\x01a" + b"\xfc\x2c\x01" + long
    parse = lambda data: data  # noqa: E731
    assert projected(parse, None) is parse


def _table(*cols: str) -> SimpleNamespace:
    return SimpleNamespace(
        namespace="inv", name="t", id="inv.t", columns=[SimpleNamespace(name=c) for c in cols]
    )


@pytest.mark.skipif(not mariadbserver.available(), reason="MariaDB server binaries not installed")
def test_override_statements() -> None:
    with mariadbserver.MariaDbServer() as db:
        db.sql("CREATE DATABASE inv")
        db.sql("CREATE TABLE t (id INT PRIMARY KEY, secret TEXT, v TEXT)", "inv")
        conn = db.connect()
        try:
            stmt = "SELECT * FROM inv.t ORDER BY id DESC"
            assert override_select(conn, _table("id", "secret", "v"), stmt) == (stmt, None)
            # `secret` excluded by column.exclude.list: run as written (a derived table would lose the order)
            assert override_select(conn, _table("id", "v"), stmt) == (stmt, [0, 2])
            stmt = "SELECT v, id FROM inv.t ORDER BY v"
            assert override_select(conn, _table("id", "v"), stmt) == (stmt, [1, 0])
            with pytest.raises(
                ValueError, match="Column 'extra' not found in result set 'id, secret, v, extra'"
            ):
                override_select(conn, _table("id", "v"), "SELECT *, id * 2 AS extra FROM inv.t")
        finally:
            conn.close()
