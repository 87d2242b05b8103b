"""PostgreSQL backend of the differential harness (`python -m emulator.testing.differential --db pg`): a
throwaway PostgreSQL, the recording's Debezium properties, SQL through psql, the slot as the streaming sign."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from emulator.testing import oracle_capture as capture
from emulator.testing.differential import Backend, WorkloadError
from emulator.testing.oracle_capture import wait_until_streaming


class PgBackend(Backend):
    name = "pg"

    @contextlib.contextmanager
    def server(self):
        from emulator.testing.pgserver import PgServer

        with PgServer() as pg:
            yield pg

    def base_props(self, pg: Any, workdir: Path) -> dict[str, str]:
        return {
            "name": "oracle-pg",
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
            "offset.flush.interval.ms": "1000",
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "true",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "true",
            "header.converter": "org.apache.kafka.connect.json.JsonConverter",
            "header.converter.schemas.enable": "true",
            **self.local_props(pg, workdir),
            "database.user": "postgres",
            "database.password": "postgres",
            "database.dbname": "postgres",
            "topic.prefix": "dbserver1",
            "plugin.name": "pgoutput",
            "slot.name": "debezium",
            "publication.name": "dbz_publication",
            "snapshot.mode": "initial",
            "provide.transaction.metadata": "true",
            "signal.data.collection": "public.debezium_signal",
            "heartbeat.interval.ms": "2000",
            "incremental.snapshot.chunk.size": "5",
            "skipped.operations": "none",
        }

    def local_props(self, pg: Any, workdir: Path) -> dict[str, str]:
        return {
            "database.hostname": "127.0.0.1",
            "database.port": str(pg.port),
            "offset.storage.file.filename": str(workdir / "offsets.dat"),
        }

    def run_sql(self, pg: Any, sql: str, wait: bool = True) -> subprocess.Popen | None:
        if not wait:
            return pg.psql_async(sql)
        r = pg.psql(sql, check=False)
        if r.returncode != 0:
            raise WorkloadError(f"psql failed ({r.returncode}): {r.stderr.strip()[:500]}")
        return None

    def streaming_sign(self, pg: Any, props: dict) -> Callable[[], bool]:
        """The slot's walsender streams: START_REPLICATION was sent, which Debezium and the emulator do only after
        their snapshot. (The slot is active earlier: the walsender that created it holds it while its exported
        snapshot is read; a walsender is in state `startup` until START_REPLICATION.)"""
        slot = props.get("slot.name", "debezium")
        q = (
            "SELECT r.state FROM pg_replication_slots s JOIN pg_stat_replication r ON r.pid = s.active_pid "
            f"WHERE s.slot_name = '{slot}'"
        )
        psql = shutil.which("psql") or str(pg.bindir / "psql")

        def streams() -> bool:
            out = subprocess.run([psql, pg.dsn, "-X", "-At", "-c", q], capture_output=True, text=True)
            return out.stdout.strip() in ("catchup", "streaming")

        return streams

    def wait_streaming(self, pg: Any, cap: capture.Capture, props: dict, timeout: float) -> None:
        slot = props.get("slot.name", "debezium")
        q = f"SELECT active FROM pg_replication_slots WHERE slot_name = '{slot}'"
        psql = shutil.which("psql") or str(pg.bindir / "psql")

        def slot_active() -> bool:
            out = subprocess.run([psql, pg.dsn, "-X", "-At", "-c", q], capture_output=True, text=True)
            return out.stdout.strip() == "t"

        wait_until_streaming(cap, slot_active, f"slot {slot}", timeout)

    def facts(self) -> dict[str, Any]:
        from emulator.testing.pgserver import pg_bindir

        out = subprocess.run([str(pg_bindir() / "postgres"), "--version"], capture_output=True, text=True)
        return {"postgres": out.stdout.strip()}
