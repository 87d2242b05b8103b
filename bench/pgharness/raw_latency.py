"""The floor of commit -> event latency: a bare pgoutput reader in its own process on its own temporary slot,
receiving the latency test's INSERTs at the same time as the engine (same server, same load).

    python bench/pgharness/raw_latency.py PORT OUT.json ID_MIN

It decodes only what it needs: an Insert message's first column (the id) and last column (client_ns), as
text. Per INSERT it notes (id, client_ns, time.time() when the message was in hand) and writes them to
OUT.json when stdin closes. It prints `ready` once streaming. It answers the walsender's keepalives and
never confirms a position (the slot is temporary: dropped when it disconnects). Its second walsender
decodes the WAL a second time on the server: at high rates that is load the engine's test shares.
"""

from __future__ import annotations

import json
import select
import struct
import sys
import threading
import time

import psycopg
from psycopg import pq

_U32 = struct.Struct("!I").unpack_from
_U16 = struct.Struct("!H").unpack_from
_KEEPALIVE = struct.Struct("!QQB").unpack_from
_STATUS = struct.Struct("!cQQQqB")
PG_EPOCH_US = 946_684_800_000_000


def first_last_text(msg: bytes, pos: int) -> tuple[bytes | None, bytes | None]:
    """The first and last column values (text) of a TupleData at `pos`."""
    n = _U16(msg, pos)[0]
    pos += 2
    first = last = None
    for i in range(n):
        kind = msg[pos]
        pos += 1
        val = None
        if kind == 116:  # 't'
            ln = _U32(msg, pos)[0]
            val = msg[pos + 4 : pos + 4 + ln]
            pos += 4 + ln
        if i == 0:
            first = val
        last = val
    return first, last


def main() -> int:
    port, out_path, id_min = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    conn = psycopg.connect(
        host="127.0.0.1",
        port=port,
        user="postgres",
        dbname="postgres",
        replication="database",
        autocommit=True,
    )
    pgconn = conn.pgconn
    res = pgconn.exec_(
        b"CREATE_REPLICATION_SLOT bench_raw_latency TEMPORARY LOGICAL pgoutput NOEXPORT_SNAPSHOT"
    )
    if res.status != pq.ExecStatus.TUPLES_OK:
        print(f"raw latency reader: slot: {res.error_message!r}", file=sys.stderr)
        return 1
    pgconn.send_query(
        b"START_REPLICATION SLOT bench_raw_latency LOGICAL 0/0 "
        b"(\"proto_version\" '1', \"publication_names\" 'dbz_publication')"
    )
    res = pgconn.get_result()
    if res.status != pq.ExecStatus.COPY_BOTH:
        print(f"raw latency reader: START_REPLICATION failed: {res.error_message!r}", file=sys.stderr)
        return 1
    pgconn.nonblocking = 1
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    print("ready", flush=True)
    samples: list[list] = []
    sock = pgconn.socket
    written = 0
    while not stop.is_set():
        n, data = pgconn.get_copy_data(1)
        if n == 0:
            if not select.select([sock], [], [], 0.1)[0]:
                continue
            pgconn.consume_input()
            continue
        if n < 0:
            break
        t = time.time()
        if data[0] == 119 and data[25] == 73:  # XLogData, 'I'
            rid, ns = first_last_text(data, 25 + 6)  # 'I', relid, 'N'
            if rid is not None and int(rid) >= id_min:
                samples.append([int(rid), int(ns) if ns else 0, t])
        elif data[0] == 107:  # keepalive
            wal_end, _ts, reply = _KEEPALIVE(data, 1)
            written = max(written, wal_end)
            if reply:
                now_us = int(time.time() * 1e6) - PG_EPOCH_US
                pgconn.put_copy_data(_STATUS.pack(b"r", written, 0, 0, now_us, 0))
                pgconn.flush()
    conn.close()
    with open(out_path, "w") as f:
        json.dump(samples, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
