"""The streaming-replication connection: slot management and the COPY BOTH loop on psycopg's pgconn.

Replication connections accept only the simple query protocol, so commands go through `pgconn.exec_`.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable
from dataclasses import dataclass

import psycopg
from psycopg import pq

from emulator.connectors.postgres.pgoutput import (
    lsn_to_int,
    parse_keepalive,
    standby_status,
)


class ReplicationError(RuntimeError):
    pass


@dataclass
class SlotInfo:
    name: str
    consistent_point: int
    snapshot_name: str | None


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class ReplicationStream:
    def __init__(
        self,
        conninfo: str,
        slot: str,
        publication: str,
        messages: bool = True,
        extra_params: dict[str, str] | None = None,
    ) -> None:
        self.conninfo = conninfo
        self.slot = slot
        self.publication = publication
        self.messages = messages
        self.extra_params = extra_params or {}
        self.conn = psycopg.connect(conninfo, replication="database", autocommit=True)
        self.pgconn = self.conn.pgconn
        self.server_wal_end = 0
        self._last_status = 0.0

    # -- commands (before streaming) -----------------------------------------------------------------
    def _exec(self, sql: str) -> pq.abc.PGresult:
        res = self.pgconn.exec_(sql.encode())
        if res.status not in (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK):
            msg = (res.error_message or b"").decode(errors="replace").strip()
            raise ReplicationError(f"{sql.split()[0]} failed: {msg}")
        return res

    def create_slot(self, export_snapshot: bool, temporary: bool = False) -> SlotInfo:
        opts = "EXPORT_SNAPSHOT" if export_snapshot else "NOEXPORT_SNAPSHOT"
        tmp = " TEMPORARY" if temporary else ""
        res = self._exec(f"CREATE_REPLICATION_SLOT {_ident(self.slot)}{tmp} LOGICAL pgoutput {opts}")
        snap = res.get_value(0, 2)
        return SlotInfo(self.slot, lsn_to_int(res.get_value(0, 1).decode()), snap.decode() if snap else None)

    def start(self, start_lsn: int) -> None:
        params = {"proto_version": "1", "publication_names": self.publication}
        if self.messages:
            params["messages"] = "true"
        params.update(self.extra_params)
        opts = ", ".join(f"{_ident(k)} {_literal(v)}" for k, v in params.items())
        lsn = f"{start_lsn >> 32:X}/{start_lsn & 0xFFFFFFFF:X}"
        self.pgconn.send_query(f"START_REPLICATION SLOT {_ident(self.slot)} LOGICAL {lsn} ({opts})".encode())
        res = self.pgconn.get_result()
        if res.status != pq.ExecStatus.COPY_BOTH:
            msg = (res.error_message or b"").decode(errors="replace").strip()
            raise ReplicationError(f"START_REPLICATION failed: {msg}")
        self.pgconn.nonblocking = 1

    # -- streaming -----------------------------------------------------------------------------------
    def read(self, timeout: float, on_wait: Callable[[], None] | None = None) -> bytes | None:
        """The next CopyData message ('w' XLogData or 'k' keepalive), or None after `timeout` s idle.
        `on_wait` runs once before blocking: the moment to let readers see what was produced so far."""
        pgconn = self.pgconn
        n, data = pgconn.get_copy_data(1)
        if n > 0:
            return data
        if n == 0:
            if on_wait is not None:
                on_wait()
            sock = pgconn.socket
            while True:
                r, _, _ = select.select([sock], [], [], timeout)
                if not r:
                    return None
                pgconn.consume_input()
                n, data = pgconn.get_copy_data(1)
                if n > 0:
                    return data
                if n < 0:
                    break
                # only part of a message arrived: wait for the rest
        res = pgconn.get_result()
        msg = (res.error_message or b"").decode(errors="replace").strip() if res else ""
        raise ReplicationError(f"replication stream ended: {msg or pgconn.error_message.decode()}")

    def handle_keepalive(self, data: bytes, flushed: int) -> None:
        wal_end, _, reply = parse_keepalive(data)
        self.server_wal_end = max(self.server_wal_end, wal_end)
        if reply:
            self.send_status(flushed)

    def send_status(self, flushed: int) -> None:
        """Standby status update: `flushed` is what we have durably handed off (offsets committed)."""
        now = time.time()
        msg = standby_status(flushed, flushed, flushed, int(now * 1_000_000))
        self.pgconn.put_copy_data(msg)
        self.pgconn.flush()
        self._last_status = now

    def status_due(self, interval_s: float) -> bool:
        return time.time() - self._last_status >= interval_s

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:
            pass
