"""A workload's binlog events read once from a throwaway MariaDB, for the tests that replay them through the
MySQL connector's handlers, each way of making rows getting the same events (test_binlog_lines,
test_binlog_tx_lines, test_binlog_update_images, test_linefill); `plain` also for bench/bench_binlog_path.py's
--mariadb packets."""

from __future__ import annotations

from types import SimpleNamespace

from emulator.connectors.mysql import binlog as bl

# what the handlers read of an event object besides the packet
_ATTRIBUTES = (
    "query",
    "schema",
    "slave_proxy_id",
    "next_binlog",
    "position",
    "flags",
    "gtid",
    "sql_statement",
)


def plain(ev) -> SimpleNamespace | None:
    """The attributes the handlers read of `ev`, in an object that outlives the reader."""
    if ev is None:
        return None
    return SimpleNamespace(**{a: getattr(ev, a) for a in _ATTRIBUTES if hasattr(ev, a)})


def read_events(db, file: str, pos, transactions: int) -> tuple[list[tuple], int]:
    """The events of `db` (a MariaDbServer) from (file, pos) until `transactions` XID events came, each as
    (etype, packet, plain attributes), and the checksum's length (4 or 0)."""
    r = bl.BinlogReader(
        {"host": "127.0.0.1", "port": db.port, "user": db.user, "password": db.password},
        server_id=77,
        blocking=False,
        resume_stream=True,
        log_file=file,
        log_pos=int(pos),
        enable_logging=False,
        mariadb_server=True,
    )
    r.connect()
    try:
        events = []
        xids = 0
        while xids < transactions:
            etype, data, ev = r.read()
            if etype is not None:
                events.append((etype, data, plain(ev)))
                xids += etype == bl.XID
        return events, 4 if r.checksum else 0
    finally:
        r.close()
