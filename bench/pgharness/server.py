"""The throwaway PostgreSQL's side: SQL that must succeed, and the connector's replication slot."""

from __future__ import annotations

import time

from emulator.testing.pgserver import PgServer

from .log import BenchError, say


def run_sql(pg: PgServer, sql: str) -> None:
    """psql, with its error as a BenchError."""
    r = pg.psql(sql, check=False)
    if r.returncode != 0:
        raise BenchError(f"SQL failed: {(r.stderr or r.stdout).strip()[:500]}")


def wait_slot_inactive(pg: PgServer, timeout_s: float = 30) -> None:
    end = time.monotonic() + timeout_s
    with pg.connect() as conn:
        while True:
            row = conn.execute(
                "SELECT bool_or(active) FROM pg_replication_slots WHERE slot_name = 'debezium'"
            )
            if not row.fetchone()[0]:
                return
            if time.monotonic() > end:
                say(f"replication slot 'debezium' still active {timeout_s:g} s after the engine stopped")
                return
            time.sleep(0.05)


def drop_slot(pg: PgServer) -> None:
    """Drop the connector's slot (default name `debezium`) so the next engine snapshots anew."""
    for _ in range(50):
        r = pg.psql(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
            "WHERE slot_name = 'debezium' AND NOT active;",
            check=False,
        )
        gone = pg.psql(
            "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = "
            "'debezium') THEN RAISE EXCEPTION 'still there'; END IF; END $$;",
            check=False,
        )
        if r.returncode == 0 and gone.returncode == 0:
            return
        time.sleep(0.2)
    say("could not drop replication slot 'debezium' (still active?)")
