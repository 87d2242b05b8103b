"""BinlogReader.read's packet framing on a real socket pair (no server: the transport alone): packets split
across reads, a payload of 16 MiB or more continued in further packets, and the read timeout (SO_RCVTIMEO
since the reader reads the socket's descriptor) raising ConnectionError instead of returning a cut packet;
`more()`, the stream loop's question after a transaction's end, seeing the read buffer as well as the socket."""

from __future__ import annotations

import socket
import threading
import time
from types import SimpleNamespace

import pytest

from emulator.connectors.mysql import binlog as bl


def _reader(sock: socket.socket) -> bl.BinlogReader:
    r = bl.BinlogReader.__new__(bl.BinlogReader)  # only what read() uses: the connection's socket
    r._read = None
    r._buffered = None
    r._stream_connection = SimpleNamespace(_sock=sock, _rfile=None)
    return r


def _packet(payload: bytes, seq: int = 0) -> bytes:
    return len(payload).to_bytes(3, "little") + bytes([seq]) + payload


def _event(etype: int, body: bytes) -> bytes:
    """An OK byte, a 19-byte event header of type `etype`, the body."""
    return b"\x00" + b"\x01\x00\x00\x00" + bytes([etype]) + b"\x00" * 14 + body


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    a.settimeout(0.3)  # as PyMySQL sets read_timeout on its socket
    yield a, b
    a.close()
    b.close()


def test_packets_split_across_reads(pair) -> None:
    a, b = pair
    r = _reader(a)
    ev1, ev2 = _event(bl.WRITE_V2, b"x" * 100), _event(bl.TABLE_MAP, b"y" * 30)
    wire = _packet(ev1) + _packet(ev2, 1)

    def send() -> None:
        for i in range(0, len(wire), 7):  # dribbled: headers and bodies cut anywhere
            b.sendall(wire[i : i + 7])
            time.sleep(0.001)

    t = threading.Thread(target=send)
    t.start()
    assert r.read() == (bl.WRITE_V2, ev1, None)
    assert r.read() == (bl.TABLE_MAP, ev2, None)
    t.join()


def test_payload_continued_past_16_mib(pair) -> None:
    a, b = pair
    r = _reader(a)
    big = _event(bl.WRITE_V2, b"z" * (0xFFFFFF + 10 - 20))
    wire = _packet(big[:0xFFFFFF]) + _packet(big[0xFFFFFF:], 1) + _packet(_event(bl.TABLE_MAP, b"t"), 2)
    t = threading.Thread(target=b.sendall, args=(wire,))
    t.start()
    assert r.read() == (bl.WRITE_V2, big, None)
    assert r.read()[0] == bl.TABLE_MAP
    t.join()


def _read_raises(r: bl.BinlogReader) -> BaseException | None:
    """What `r.read()` raised, read on a thread: a reader that ignores the timeout fails this (it would block
    until the socket closes), not the whole run."""
    out: list = []

    def run() -> None:
        try:
            out.append(r.read())
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(60)  # a hang guard, far above the socket's 0.3 s
    assert out, "read() ignored the read timeout"
    return out[0]


def test_read_timeout_inside_a_packet_raises(pair) -> None:
    a, b = pair
    b.sendall(_packet(_event(bl.WRITE_V2, b"w" * 50))[:40])  # a packet cut short, then silence
    assert isinstance(_read_raises(_reader(a)), ConnectionError)


def test_read_timeout_between_packets_raises(pair) -> None:
    a, _b = pair
    assert isinstance(_read_raises(_reader(a)), ConnectionError)


def test_end_of_stream_raises(pair) -> None:
    a, b = pair
    r = _reader(a)
    b.sendall(_packet(_event(bl.WRITE_V2, b"v")))
    b.shutdown(socket.SHUT_WR)
    assert r.read()[0] == bl.WRITE_V2
    with pytest.raises(ConnectionError):
        r.read()


def _until(cond, what: str) -> None:
    deadline = time.monotonic() + 30  # a hang guard, not a timing assertion
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.001)


def test_more_sees_the_read_buffer_and_the_socket(pair) -> None:
    a, b = pair
    r = _reader(a)
    evs = [_event(bl.WRITE_V2, bytes([65 + i]) * 40) for i in range(3)]
    b.sendall(b"".join(_packet(e, i) for i, e in enumerate(evs)))
    _until(lambda: r.more(), "three packets sent, none seen on the socket")
    assert r.read() == (bl.WRITE_V2, evs[0], None)  # one buffer fill took all three off the socket
    assert r.more()  # the second and third are in the buffer, not on the socket
    assert r.read() == (bl.WRITE_V2, evs[1], None)
    assert r.more()
    assert r.read() == (bl.WRITE_V2, evs[2], None)
    assert not r.more()  # nothing buffered, nothing sent: the stream flushes now
    last = _event(bl.WRITE_V2, b"x" * 8)
    b.sendall(_packet(last, 3))
    _until(lambda: r.more(), "a packet sent after the buffer emptied, not seen")
    assert r.read() == (bl.WRITE_V2, last, None)
    assert not r.more()


def test_more_after_a_read_past_the_buffer(pair) -> None:
    """A packet larger than the read buffer is read around it: nothing is left buffered after it."""
    a, b = pair
    r = _reader(a)
    big = _event(bl.WRITE_V2, b"q" * (bl.READ_BUFFER * 2))
    t = threading.Thread(target=b.sendall, args=(_packet(big),))
    t.start()
    assert r.read() == (bl.WRITE_V2, big, None)
    t.join()
    assert not r.more()
    small = _event(bl.WRITE_V2, b"s")
    b.sendall(_packet(small, 1) + _packet(small, 2))
    _until(lambda: r.more(), "two packets sent, not seen")
    assert r.read() == (bl.WRITE_V2, small, None)
    assert r.more()
