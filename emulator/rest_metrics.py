"""The standalone runner's metrics endpoint (`python -m emulator run --metrics-port`): Prometheus `/metrics`,
and `/connectors`, `/connectors/{name}/status|metrics` for `python -m emulator status`; served with the
same hardening as the REST worker (emulator/rest_http.py)."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from emulator.rest_http import REASONS, error_response
from emulator.worker import HttpError


def _json(body) -> JSONResponse:  # noqa: ANN001
    return JSONResponse(body)


def metrics_app(sources, name_of=None) -> Starlette:
    """The standalone runner's metrics endpoint (`python -m emulator run --metrics-port`): Prometheus
    `/metrics`, and `/connectors`, `/connectors/{name}/status|metrics` for `python -m emulator status`."""
    from emulator.metrics_prometheus import CONTENT_TYPE, exposition, registry_for

    def one(request: Request):
        for name, m, state in sources():
            if name == request.path_params["name"]:
                return name, m, state
        raise HttpError(404, f"Connector {request.path_params['name']} not found")

    async def prometheus(request: Request) -> Response:
        return Response(
            exposition(registry_for(lambda: [m for _, m, _ in sources()])), media_type=CONTENT_TYPE
        )

    async def names(request: Request) -> Response:
        return _json([n for n, _, _ in sources()])

    async def status(request: Request) -> Response:
        name, _, state = one(request)
        return _json(
            {
                "name": name,
                "connector": {"state": state(), "worker_id": "standalone"},
                "tasks": [{"id": 0, "state": state(), "worker_id": "standalone"}],
                "type": "source",
            }
        )

    async def metrics(request: Request) -> Response:
        name, m, _ = one(request)
        return _json({"name": name, "plugin": m.plugin, "server": m.server, **m.as_dict()})

    async def http_error(request: Request, exc: HttpError) -> Response:
        return error_response(exc.code, exc.message)

    async def starlette_error(request: Request, exc: HTTPException) -> Response:
        return error_response(
            exc.status_code, f"HTTP {exc.status_code} {REASONS.get(exc.status_code, exc.detail)}"
        )

    return Starlette(
        routes=[
            Route("/metrics", prometheus, methods=["GET"]),
            Route("/connectors", names, methods=["GET"]),
            Route("/connectors/{name}/status", status, methods=["GET"]),
            Route("/connectors/{name}/metrics", metrics, methods=["GET"]),
        ],
        exception_handlers={HttpError: http_error, HTTPException: starlette_error},
    )
