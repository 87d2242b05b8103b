"""Hold a connector in the middle of a stream whatever the machine's speed: a loopback TCP proxy between the
connector and its database that, once told, forwards only a given number of bytes more from the server and then
holds the rest (a slow network, seen from the connector; nothing of the product is touched).

A test that stops or kills a process "in the middle of" a transaction or snapshot used to wait until part of the
output was written and hope the rest was not: a faster path (or a slower poll under load) wrote everything first
("nothing was tested"). With the proxy the rest of the stream cannot arrive until `release()`, so the stop lands
inside it by construction.

Each connection has two pumps: client to server always flows (status updates, a clean stop's last messages);
server to client takes from a budget shared by the held connections once `hold_after(n)` was called. `only`
picks those: connections whose first client bytes contain it (PostgreSQL: b"replication\x00", in the startup
message of the replication connection), so that the connector's catalog queries, which a Relation message
starts, are still answered; None holds every connection."""

from __future__ import annotations

import socket
import threading


class HoldingProxy:
    def __init__(self, host: str, port: int, only: bytes | None = None) -> None:
        self.upstream = (host, port)
        self.only = only
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.forwarded = 0  # server-to-client bytes since hold_after (or since the start)
        self._budget: int | None = None  # None: no limit
        self._cond = threading.Condition()
        self._closed = False
        self._socks: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True, name="hold-accept").start()

    # -- the test's side -----------------------------------------------------------------------------------
    def hold_after(self, n: int) -> None:
        """From now on forward at most `n` more bytes from the server, then hold."""
        with self._cond:
            self._budget, self.forwarded = n, 0
            self._cond.notify_all()

    def holding(self) -> bool:
        """The budget is spent: the connector has been sent all it will get until `release()`."""
        with self._cond:
            return self._held()

    def release(self) -> None:
        with self._cond:
            self._budget = None
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            socks, self._socks = self._socks, []
        for s in [self.listener, *socks]:
            _close(s)

    def __enter__(self) -> HoldingProxy:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the pumps -----------------------------------------------------------------------------------------
    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
                server = socket.create_connection(self.upstream)
            except OSError:
                return  # closed
            with self._cond:
                if self._closed:
                    _close(client)
                    _close(server)
                    return
                self._socks += [client, server]
            held = threading.Event()  # the connection is one `only` picks (set by _up on its first bytes)
            if self.only is None:
                held.set()
            threading.Thread(target=self._up, args=(client, server, held), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, held), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket, held: threading.Event) -> None:
        """Client to server, never held; the client's end (a stop, a kill -9) ends the pair."""
        first = b""
        try:
            while data := client.recv(65536):
                if self.only is not None and len(first) < 4096:
                    first += data
                    if self.only in first:
                        held.set()
                server.sendall(data)
        except OSError:
            pass
        self._end(client, server)

    def _down(self, server: socket.socket, client: socket.socket, held: threading.Event) -> None:
        try:
            while True:
                with self._cond:
                    while held.is_set() and self._held() and not self._closed and client.fileno() >= 0:
                        self._cond.wait(0.2)
                    if self._closed or client.fileno() < 0:
                        break
                    # a recv already under way when hold_after came may overshoot by one read: tests hold
                    # while the stream is idle, and budgets are far larger than 64 KiB
                    limited = held.is_set() and self._budget is not None
                    want = min(65536, self._budget) if limited else 65536
                data = server.recv(want)
                if not data:
                    break
                with self._cond:
                    if held.is_set():
                        self.forwarded += len(data)
                        if self._budget is not None:
                            self._budget -= len(data)
                client.sendall(data)
        except OSError:
            pass
        self._end(client, server)

    def _held(self) -> bool:
        return self._budget is not None and self._budget <= 0

    def _end(self, client: socket.socket, server: socket.socket) -> None:
        with self._cond:
            _close(client)
            _close(server)
            self._cond.notify_all()


def _close(s: socket.socket) -> None:
    try:
        s.close()
    except OSError:
        pass
