"""A snapshot that stops on a record (a transform or converter failing under errors.tolerance=none) leaves the
table's unbuffered row stream suspended, and the connection is closed before the generator is collected. The
generator's drain then read a closed file: "Exception ignored" tracebacks from textrows, pymysql's SSCursor and
MySQLResult after the emulator's one-line error (connect campaign seed 118 trials 9 and 13). Closing it now
leaves the connection as it is and raises nothing."""

from __future__ import annotations

import pymysql
import pytest

from emulator.connectors.mysql import textrows
from emulator.testing import mariadbserver

pytestmark = pytest.mark.skipif(not mariadbserver.available(), reason="MariaDB server binaries not installed")


def test_a_suspended_stream_closes_after_its_connection() -> None:
    with mariadbserver.MariaDbServer() as db:
        db.sql("CREATE DATABASE s; CREATE TABLE s.t (id INT PRIMARY KEY, v VARCHAR(20))")
        db.sql("INSERT INTO t SELECT seq, CONCAT('v', seq) FROM seq_1_to_5000", "s")
        conn = pymysql.connect(host="127.0.0.1", port=db.port, user=db.user, password=db.password)
        rows = textrows.stream_rows(conn, "SELECT id, v FROM s.t ORDER BY id", lambda data: data)
        assert next(rows)[-2:] == b"v1"  # the first row's packet: ... 'v1'
        conn.close()  # (the stop closes the connection first)
        rows.close()  # raised ValueError: read of closed file (and left the result active)
        assert conn._result is None
        # a live connection is still drained: the next query on it reads its own result
        live = pymysql.connect(host="127.0.0.1", port=db.port, user=db.user, password=db.password)
        rows = textrows.stream_rows(live, "SELECT id, v FROM s.t ORDER BY id", lambda data: data)
        next(rows)
        rows.close()
        with live.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM s.t")
            assert cur.fetchone() == (5000,)
        live.close()
