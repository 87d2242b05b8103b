"""Binlog streaming on mysql-replication, with fast row decoding.

`mysql-replication` (pymysqlreplication) connects, registers as a replica, positions the dump (file/pos,
MariaDB GTID state or a MySQL GTID set), sends heartbeat and checksum settings, and frames every event other
than row data into its event classes. What it does slowly, we do here: its `TableMapEvent` re-parses the
optional metadata of every table map (two thirds of its time on a busy binlog) and its row events decode
value by value through generic code. Instead:

* table-map events are cached by their bytes (everything after the table id), so a table map is parsed
  once per distinct table layout, not once per transaction;
* for each (table layout, captured table) pair a row decoder is generated as straight-line Python: one
  `unpack_from` or slice per column, the column's converter inlined, the row dict built as a literal
  (`row_decoders.py`; the binary values it decodes are `binlog_values.py`).

`BinlogReader` is a subclass of the library's `BinLogStreamReader` that keeps its connection and positioning
code and replaces `fetchone`'s per-event dispatch with `read()`, which returns the raw packet alone for the
events the connector decodes itself (rows, table maps, and the fixed layouts around a transaction: MariaDB's
GTID, XID, a QUERY that is `BEGIN` or `COMMIT`, heartbeats) and the library's event object for everything
else (DDL and other QUERY events, rotations, the format description, MySQL GTIDs, annotations).
"""

from __future__ import annotations

import io
import select
import socket
import ssl
import struct
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from pymysql.protocol import MysqlPacket
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.packet import BinLogPacketWrapper

from emulator.linefill import FRAME

# event types
ROTATE, FORMAT_DESCRIPTION, QUERY, XID, HEARTBEAT = 4, 15, 2, 16, 27
TABLE_MAP = 19
WRITE_V1, UPDATE_V1, DELETE_V1 = 23, 24, 25
WRITE_V2, UPDATE_V2, DELETE_V2 = 30, 31, 32
MYSQL_GTID, ANONYMOUS_GTID, PREVIOUS_GTIDS, ROWS_QUERY = 33, 34, 35, 29
MARIADB_ANNOTATE, MARIADB_CHECKPOINT, MARIADB_GTID, MARIADB_GTID_LIST = 160, 161, 162, 163
ROW_EVENTS = frozenset({WRITE_V1, UPDATE_V1, DELETE_V1, WRITE_V2, UPDATE_V2, DELETE_V2})
WRITES = frozenset({WRITE_V1, WRITE_V2})
UPDATES = frozenset({UPDATE_V1, UPDATE_V2})
V2 = frozenset({WRITE_V2, UPDATE_V2, DELETE_V2})
# read() returns these as packets alone (no library event): a transaction's small events cost more as the
# library's packet and event objects (~10k instructions each) than as the few fields the connector reads
_RAW_EVENTS = ROW_EVENTS | {TABLE_MAP, MARIADB_GTID, XID, HEARTBEAT}
_RAW_MAP = bytes(t in _RAW_EVENTS for t in range(256))  # fastframe.c's `raw`: a byte per event type

# column types
T_DECIMAL, T_TINY, T_SHORT, T_LONG, T_FLOAT, T_DOUBLE, T_NULL, T_TIMESTAMP = 0, 1, 2, 3, 4, 5, 6, 7
T_LONGLONG, T_INT24, T_DATE, T_TIME, T_DATETIME, T_YEAR, T_NEWDATE, T_VARCHAR = 8, 9, 10, 11, 12, 13, 14, 15
T_BIT, T_TIMESTAMP2, T_DATETIME2, T_TIME2 = 16, 17, 18, 19
T_JSON, T_NEWDECIMAL, T_ENUM, T_SET = 245, 246, 247, 248
T_TINY_BLOB, T_MEDIUM_BLOB, T_LONG_BLOB, T_BLOB, T_VAR_STRING, T_STRING, T_GEOMETRY = (
    249,
    250,
    251,
    252,
    253,
    254,
    255,
)

# The binlog connection's packets are read from its socket's file descriptor through a C buffered reader
# (`BinlogReader._packet_read`): PyMySQL's socket file reads through socket.SocketIO, a Python class whose
# `closed` the C reader looks up as a Python attribute on every read (two a packet), into an 8 KiB buffer.
# callgrind, a 20k-row INSERT catch-up in process (as bench_binlog_path.py --catchup): 72.1k -> 69.8k
# instructions an event. 256 KiB: fewer read syscalls while catching up; a read returns whatever has arrived.
READ_BUFFER = 1 << 18
_TIMEVAL = struct.Struct("@ll")  # struct timeval, for SO_RCVTIMEO
_length = struct.Struct("<I").unpack  # a packet's header: length (3 bytes), sequence number


def _continued(read, data: bytes | None) -> tuple[bytes | None, int]:
    """A packet of 0xFFFFFF bytes and those that continue it (a payload of 16 MiB or more) -> (the payload,
    its length), the payload shorter than the length when a read was cut short."""
    n = 0xFFFFFF
    part = n
    while part == 0xFFFFFF and data is not None and len(data) == n:
        part = _length(read(4))[0] & 0xFFFFFF
        more = read(part)
        if more is None:
            break
        data += more
        n += part
    return data, n


HEADER = struct.Struct("<IBIII")  # timestamp, type, server_id, event_size, log_pos (flags follow)
# the fixed layouts read from a packet (the body starts at 20: OK byte, 19-byte header)
MARIADB_GTID_BODY = struct.Struct("<QIB")  # sequence number, domain, flags (a commit id may follow: unread)
QUERY_POST = struct.Struct("<IIBHH")  # thread id, execution time, schema length, error code, status length
QUERY_POST_LEN = 13  # the QUERY post-header's length in every MySQL and MariaDB format description
_BEGIN, _COMMIT = b"BEGIN", b"COMMIT"


def query_text_start(data: bytes) -> int:
    """Where a QUERY packet's statement starts: after the post-header (`QUERY_POST_LEN`), the status
    variables, the default schema and its NUL."""
    return 20 + QUERY_POST_LEN + (data[31] | data[32] << 8) + data[28] + 1


def mariadb_gtid(data: bytes, server_id: int) -> tuple[str, int]:
    """A MariaDB GTID event's packet -> (`domain-server-sequence`, flags), as the library's
    MariadbGtidEvent (the server id is the event header's)."""
    seq, domain, flags = MARIADB_GTID_BODY.unpack_from(data, 20)
    return f"{domain}-{server_id}-{seq}", flags


def lenenc(buf: bytes, p: int) -> tuple[int, int]:
    c = buf[p]
    if c < 251:
        return c, p + 1
    if c == 252:
        return buf[p + 1] | buf[p + 2] << 8, p + 3
    if c == 253:
        return int.from_bytes(buf[p + 1 : p + 4], "little"), p + 4
    return int.from_bytes(buf[p + 1 : p + 9], "little"), p + 9


@dataclass(slots=True)
class TableMap:
    schema: str
    table: str
    types: bytes
    metas: list[int]
    key: bytes  # cache key: the event body after the table id
    nullable: int = -1  # bit i set: column i may be NULL (all, when unknown)


def _metas(types: bytes, meta: bytes) -> list[int]:
    out = []
    p = 0
    for t in types:
        if t in (
            T_FLOAT,
            T_DOUBLE,
            T_BLOB,
            T_TINY_BLOB,
            T_MEDIUM_BLOB,
            T_LONG_BLOB,
            T_GEOMETRY,
            T_JSON,
            T_TIMESTAMP2,
            T_DATETIME2,
            T_TIME2,
        ):
            out.append(meta[p])
            p += 1
        elif t in (T_VARCHAR, T_VAR_STRING):
            out.append(meta[p] | meta[p + 1] << 8)
            p += 2
        elif t in (T_BIT, T_NEWDECIMAL):
            out.append(meta[p] << 8 | meta[p + 1])  # NEWDECIMAL: precision, scale; BIT: bits, bytes
            p += 2
        elif t in (T_STRING, T_ENUM, T_SET):
            out.append(meta[p] << 8 | meta[p + 1])  # real type, length
            p += 2
        else:
            out.append(0)
    return out


def parse_table_map(body: bytes) -> TableMap:
    p = 8
    slen = body[p]
    schema = body[p + 1 : p + 1 + slen].decode("utf-8", "replace")
    p += slen + 2
    tlen = body[p]
    table = body[p + 1 : p + 1 + tlen].decode("utf-8", "replace")
    p += tlen + 2
    n, p = lenenc(body, p)
    types = bytes(body[p : p + n])
    p += n
    mlen, p = lenenc(body, p)
    metas = _metas(types, body[p : p + mlen])
    p += mlen
    nb = (n + 7) // 8
    nullable = int.from_bytes(body[p : p + nb], "little") if len(body) >= p + nb else (1 << n) - 1
    return TableMap(schema, table, types, metas, bytes(body[6:]), nullable)


_FULL: dict[int, bytes] = {}


def _full_bitmap(n: int) -> bytes:
    b = _FULL.get(n)
    if b is None:
        b = _FULL[n] = ((1 << n) - 1).to_bytes((n + 7) // 8, "little")
    return b


def rows_body_start(body: bytes, etype: int, at: int = 0) -> tuple[int, int, int, bool]:
    """-> (table id, position of the first row, column count, every column present), for a rows event
    body starting at `at` in `body`."""
    table_id = int.from_bytes(body[at : at + 6], "little")
    p = at + 8
    if etype in V2:
        p += body[p] | body[p + 1] << 8
    n = body[p]
    if n < 251:
        p += 1
    else:
        n, p = lenenc(body, p)
    full_map = _FULL.get(n) or _full_bitmap(n)
    nb = len(full_map)
    full = body[p : p + nb] == full_map
    p += nb
    if etype in UPDATES:
        full = full and body[p : p + nb] == full_map
        p += nb
    return table_id, p, n, full


class _CountedFile(io.FileIO):
    """The socket's descriptor as a raw file that counts the bytes it has read (`got`) and says so as its
    position: the buffered reader's `tell()` is then the count of bytes handed out, and `got - tell()` what
    its buffer still holds (`BinlogReader.more`), without a count per packet or a copy of the buffer (`peek`
    copies all of it). Nothing seeks it: the reader only reads."""

    got = 0

    def readinto(self, b):  # once per buffer fill, not per packet
        n = super().readinto(b)
        if n:
            self.got += n
        return n

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.got


class _Ctl:
    """What the library's event classes need of its control connection."""

    charset = "utf8mb4"

    def __init__(self, dbms: str = "mysql") -> None:
        self.dbms = dbms

    def _get_dbms(self) -> str:
        return self.dbms


class BinlogReader(BinLogStreamReader):
    """The library's reader with `read()` in place of `fetchone()`: raw packets for row data."""

    def __init__(self, *args: Any, mariadb_server: bool = False, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._ctl = _Ctl("mariadb" if mariadb_server else "mysql")
        self.checksum = False
        self._read = None  # the connection's buffered socket file's read
        self._plain_query = True  # the format description's QUERY post-header is QUERY_POST_LEN long
        self._buffered: io.BufferedReader | None = None  # its buffered reader (not TLS)

    def connect(self) -> None:
        self._BinLogStreamReader__connect_to_stream()
        self.checksum = self._BinLogStreamReader__use_checksum

    def _packet_read(self):
        """The connection's `read(n)` for the binlog stream (see READ_BUFFER): a C buffered reader on the
        socket's file descriptor, the socket made blocking with the read timeout as SO_RCVTIMEO (a read that
        times out returns what it has, or None: `read` then raises ConnectionError, as a socket timeout did).
        A TLS connection keeps PyMySQL's socket file (the descriptor carries the encrypted bytes). PyMySQL's
        buffer is empty here: the library's last act was writing the dump command."""
        conn = self._stream_connection
        sock = conn._sock
        if isinstance(sock, ssl.SSLSocket) or not isinstance(sock, socket.socket):
            return conn._rfile.read
        timeout = sock.gettimeout()
        sock.settimeout(None)
        if timeout:
            sec = int(timeout)
            sock.setsockopt(
                socket.SOL_SOCKET, socket.SO_RCVTIMEO, _TIMEVAL.pack(sec, int((timeout - sec) * 1e6))
            )
        self._fd_file = _CountedFile(sock.fileno(), "rb", closefd=False)
        self._buffered = io.BufferedReader(self._fd_file, READ_BUFFER)
        return self._buffered.read

    def more(self) -> bool:
        """More of the log already here (read into the buffer, or waiting on the socket)? The stream loop
        asks after a transaction's end: without more, what it wrote is flushed at once (docs/latency.md). The
        buffer first: a catch-up's last 256 KiB are all in it while the socket has nothing more, and asking
        only the socket flushed after each of their transactions."""
        buffered = self._buffered
        if buffered is not None and buffered.tell() != self._fd_file.got:
            return True
        sock = self._stream_connection._sock
        if isinstance(sock, ssl.SSLSocket) and sock.pending():  # TLS: decrypted bytes held by the socket
            return True
        return bool(select.select((sock,), (), (), 0)[0])

    def frames(self) -> Callable[[], tuple[int, bytes, Any]]:
        """The stream loop's `read()`: fastframe.c's `frame` on the connection's reader where the C module is
        built (the same results: a raw event's packet framed in C, anything else ended by `_rest`), else
        `read`."""
        if FRAME is None:
            return self.read
        if self._read is None:
            self._read = self._packet_read()
        return partial(FRAME, self._read, _RAW_MAP, self._rest)

    def read(self) -> tuple[int, bytes, Any]:
        """-> (event type, packet bytes, library event or None for the events the connector decodes from the
        packet: `_RAW_EVENTS` and a QUERY whose statement is `BEGIN` or `COMMIT`).

        Packets are read straight from the connection's socket (`_packet_read`: pymysql's per-packet object
        and sequence bookkeeping cost more than the decoding of a small row event); the library's packet
        class is built only for the events its classes decode."""
        read = self._read
        if read is None:
            read = self._read = self._packet_read()
        try:
            n = _length(read(4))[0] & 0xFFFFFF  # struct.error: a header cut short; TypeError: None
            data = read(n)
            if n == 0xFFFFFF:  # 16 MiB or more: the rest follows in further packets
                data, n = _continued(read, data)
        except (OSError, struct.error, TypeError) as e:
            raise ConnectionError(f"binlog connection lost: {e!r}") from e
        if data is not None and n >= 20 and len(data) == n:
            etype = data[5]
            if etype in _RAW_EVENTS:
                return etype, data, None
        return self._event(n, data)

    def _rest(self, head: bytes | None, data: Any) -> tuple[int, bytes, Any]:
        """`read` after fastframe.c's `frame` read the packet's header `head` and its payload `data` (None: not
        read, a payload of 16 MiB or more) and did not take it; `head` None: a read raised `data`."""
        if head is None:
            raise ConnectionError(f"binlog connection lost: {data!r}") from data
        read = self._read
        try:
            n = _length(head)[0] & 0xFFFFFF
            if data is None:
                data = read(n)
                if n == 0xFFFFFF:
                    data, n = _continued(read, data)
        except (OSError, struct.error, TypeError) as e:
            raise ConnectionError(f"binlog connection lost: {e!r}") from e
        return self._event(n, data)

    def _event(self, n: int, data: bytes | None) -> tuple[int, bytes, Any]:
        """`read`'s result for a packet of `n` bytes read as `data`, other than a whole raw event's."""
        if data is None or len(data) != n:  # cut short: the end of the stream, or the read timed out
            raise ConnectionError("binlog connection lost (or silent for the read timeout)")
        if n < 20:
            if not data:
                raise ConnectionError("binlog connection lost")
            if data[0] == 0xFF:
                MysqlPacket(data, "utf8").raise_for_error()
            raise ConnectionError("the server ended the binlog stream")
        etype = data[5]
        if etype in _RAW_EVENTS:
            return etype, data, None
        if etype == QUERY and self._plain_query and n - 4 * self.checksum - query_text_start(data) < 7:
            text = data[query_text_start(data) : n - 4 if self.checksum else n]
            if text == _BEGIN or text == _COMMIT:
                return etype, data, None
        if data[0] == 0xFF:
            MysqlPacket(data, "utf8").raise_for_error()
        pkt = MysqlPacket(data, "utf8")
        wrapped = BinLogPacketWrapper(
            pkt,
            self.table_map,
            self._ctl,
            self.mysql_version,
            self.checksum,
            self._BinLogStreamReader__allowed_events_in_packet,
            None,
            None,
            None,
            None,
            False,
            False,
            False,
            False,
            False,
            False,
            self._BinLogStreamReader__post_header_lengths,
        )
        if etype == FORMAT_DESCRIPTION and wrapped.event is not None:
            self.mysql_version = wrapped.event.mysql_version
            self._BinLogStreamReader__post_header_lengths = lengths = wrapped.event.post_header_len
            self._plain_query = len(lengths) < QUERY or lengths[QUERY - 1] == QUERY_POST_LEN
        return etype, data, wrapped.event
