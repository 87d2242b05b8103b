"""The HTTP hardening every emulator endpoint shares (the REST worker's and the standalone metrics port's),
because a worker faces whoever can reach its port: request bodies over `MAX_BODY` bytes get 413, a request
whose headers do not arrive within `HEADER_TIMEOUT_S` or whose body does not arrive within `BODY_TIMEOUT_S`
gets 408 and is closed, oversized headers get 431, and every error is `{"error_code": N, "message": "..."}`
(never HTML or plain text, malformed HTTP included). `uvicorn_config` serves an app with all of it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from typing import Any

import h11
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse
from uvicorn.protocols.http.h11_impl import H11Protocol

from emulator.worker import HttpError

log = logging.getLogger("emulator.worker")

MAX_BODY = 1 << 20  # 1 MiB: a connector config is a few KiB
DRAIN_MAX = 8 << 20  # an oversized body is read and dropped up to this much before the 413
MAX_HEADERS = 32 << 10  # request line and headers; h11 only bounds them while they are incomplete
# the deadlines; the environment variables are a test hook (the slow-client test need not wait 30 s out)
HEADER_TIMEOUT_S = float(os.environ.get("DBZ_REST_HEADER_TIMEOUT_S") or 10.0)
BODY_TIMEOUT_S = float(os.environ.get("DBZ_REST_BODY_TIMEOUT_S") or 30.0)


def error_response(code: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error_code": code, "message": message}, status_code=code, headers=headers)


def _error_bytes(code: int, reason: str, message: str) -> bytes:
    body = json.dumps({"error_code": code, "message": message}).encode()
    return (
        f"HTTP/1.1 {code} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    ).encode() + body


class HardenedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for a request's headers (uvicorn has none: a client sending
    half a request line would hold its connection for ever) and JSON bodies for malformed requests."""

    header_timeout_s = HEADER_TIMEOUT_S

    def connection_made(self, transport) -> None:  # noqa: ANN001
        super().connection_made(transport)
        self._header_timer = None
        self._arm()

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_late, self.cycle)

    def data_received(self, data: bytes) -> None:
        if self.cycle is None or self.cycle.response_complete:
            self._arm()  # a new request begins: its headers have the deadline
        super().data_received(data)

    def _headers_late(self, cycle) -> None:  # noqa: ANN001
        self._header_timer = None
        if self.transport.is_closing():
            return
        if self.cycle is cycle:  # no request line and headers since the timer started
            log.debug(
                "closing %s: request headers not received in %.0f s", self.client, self.header_timeout_s
            )
            self.transport.write(_error_bytes(408, "Request Timeout", "Request headers not received in time"))
            self.transport.close()

    def connection_lost(self, exc) -> None:  # noqa: ANN001
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        if self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            self.transport.write(_error_bytes(400, "Bad Request", msg))
        self.transport.close()


async def request_body(request: Request) -> Any:
    """The request's JSON body (None when empty), within MAX_BODY bytes and BODY_TIMEOUT_S.

    An oversized body is read on and dropped up to DRAIN_MAX bytes (a client still sending would otherwise
    see the connection reset instead of the 413); beyond that the connection is closed at once."""
    length = request.headers.get("content-length")
    too_big = f"Request body larger than {MAX_BODY} bytes"
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        if length.isdigit() and int(length) <= DRAIN_MAX:
            await _drain(request)
        raise HttpError(413, too_big)
    chunks: list[bytes] = []
    size = 0

    async def pull() -> bool:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                return False
            chunks.append(chunk)
        return True

    try:
        complete = await asyncio.wait_for(pull(), BODY_TIMEOUT_S)
    except TimeoutError:
        raise HttpError(408, "Request body not received in time") from None
    except ClientDisconnect:
        raise HttpError(400, "The client closed the connection before sending the whole body") from None
    if not complete:
        chunks.clear()
        await _drain(request, size)
        raise HttpError(413, too_big)
    raw = b"".join(chunks)
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except RecursionError:
        raise HttpError(400, "Cannot deserialize request body: nested too deeply") from None
    except ValueError as e:
        raise HttpError(400, f"Cannot deserialize request body: {e}") from None


async def _drain(request: Request, size: int = 0) -> None:
    async def rest() -> None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > DRAIN_MAX:
                return

    try:
        await asyncio.wait_for(rest(), 5)
    except (TimeoutError, RuntimeError, ClientDisconnect):  # RuntimeError: the stream was consumed already
        pass


class LimitHeaders:
    """431 for oversized request headers, before any routing; a trailing slash is ignored."""

    def __init__(self, app) -> None:  # noqa: ANN001
        self.app = app

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001
        if scope["type"] == "http":
            path = scope["path"]
            if len(path) > 1 and path.endswith("/"):  # Jersey serves `/connectors/` as `/connectors`
                scope = {**scope, "path": path.rstrip("/") or "/"}
            size = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
            size += sum(len(k) + len(v) for k, v in scope["headers"])
            if size > MAX_HEADERS:
                response = error_response(
                    431, f"Request headers larger than {MAX_HEADERS} bytes", {"Connection": "close"}
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


REASONS = {
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    413: "Request Entity Too Large",
    415: "Unsupported Media Type",
}


def uvicorn_config(app, host: str, port: int):
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=HardenedH11,
        lifespan="off",
        log_config=None,
        access_log=False,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,
        h11_max_incomplete_event_size=64 * 1024,
        server_header=False,
    )
