"""The throwaway servers start from one pristine copy per process (emulator/testing/pgserver.py,
mariadbserver.py): what one server's test wrote must never show in the next server."""

from __future__ import annotations

import pytest

from emulator.testing import mariadbserver
from emulator.testing.pgserver import PgServer


def test_pg_servers_do_not_share_state():
    with PgServer() as first:
        first.psql("CREATE TABLE public.leak (id int); CREATE PUBLICATION leak_pub FOR ALL TABLES;")
        first.psql("SELECT pg_create_logical_replication_slot('leak_slot', 'pgoutput');")
        with PgServer() as second:
            with second.connect() as conn:
                assert conn.execute("SELECT to_regclass('public.leak')").fetchone() == (None,)
                assert conn.execute("SELECT count(*) FROM pg_publication").fetchone() == (0,)
                assert conn.execute("SELECT count(*) FROM pg_replication_slots").fetchone() == (0,)
                assert conn.execute("SHOW wal_level").fetchone() == ("logical",)
            assert second.port != first.port and second.base != first.base


@pytest.mark.skipif(not mariadbserver.available(), reason="MariaDB server binaries not installed")
def test_mariadb_servers_do_not_share_state():
    with mariadbserver.MariaDbServer() as first:
        first.sql("CREATE DATABASE leak; CREATE TABLE leak.t (id int); INSERT INTO leak.t VALUES (1);")
        with mariadbserver.MariaDbServer() as second:
            assert second.query(
                "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'leak'"
            ) == [["0"]]
            # a fresh binlog: the first server's transactions are not in the second's GTID state
            assert second.query("SELECT @@gtid_binlog_pos") != first.query("SELECT @@gtid_binlog_pos")
            assert second.port != first.port
