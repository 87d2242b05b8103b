"""The REST worker's HTTP face: Kafka Connect's REST API (Connect 3.9 / 4.x `RootResource`,
`ConnectorsResource`, `ConnectorPluginsResource`, `LoggingResource`) on Starlette and uvicorn, plus the
emulator's metrics (`GET /connectors/{name}/metrics`, Prometheus `GET /metrics`).

The HTTP hardening (body and header limits and deadlines, JSON errors for malformed requests) is
emulator/rest_http.py; worker operations run in threads so a slow request or a slow connector stop never
holds up the others. The standalone runner's metrics endpoint is emulator/rest_metrics.py.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from emulator import connect_validate
from emulator.connect_plugins import other_plugins
from emulator.rest_http import REASONS, LimitHeaders, error_response, request_body, uvicorn_config
from emulator.worker import DEBEZIUM_VERSION, KAFKA_VERSION, HttpError, Worker, plugin_of, supported_classes

__all__ = ["build_app", "uvicorn_config"]

log = logging.getLogger("emulator.worker")


def _flag(request: Request, name: str) -> bool:
    return request.query_params.get(name, "false").strip().lower() == "true"


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=headers)


def _config_map(body: Any, what: str = "Connector config") -> dict[str, Any]:
    if not isinstance(body, dict):
        raise HttpError(400, f"{what} is null or not a JSON object")
    return body


# -- logging levels as log4j names them (LoggingResource)
_LOG4J_TO_PY = {
    "OFF": logging.CRITICAL + 10,
    "FATAL": logging.CRITICAL,
    "ERROR": logging.ERROR,
    "WARN": logging.WARNING,
    "INFO": logging.INFO,
    "DEBUG": logging.DEBUG,
    "TRACE": 5,
    "ALL": 1,
}
_PY_TO_LOG4J = {v: k for k, v in _LOG4J_TO_PY.items()}


def _level_name(level: int) -> str:
    return _PY_TO_LOG4J.get(level) or logging.getLevelName(level)


def build_app(worker: Worker) -> Starlette:
    def connector_name(request: Request) -> str:
        return request.path_params["name"]

    async def root(request: Request) -> Response:
        return _json({"version": KAFKA_VERSION, "commit": "dbz-emulator", "kafka_cluster_id": "dbz-emulator"})

    async def plugins(request: Request) -> Response:
        classes = await run_in_threadpool(supported_classes)
        out = [{"class": c, "type": "source", "version": DEBEZIUM_VERSION} for c in classes]
        if request.query_params.get("connectorsOnly", "true").strip().lower() == "false":
            # as Connect: every plugin, here those the emulator runs (connect_plugins)
            out += other_plugins(KAFKA_VERSION, DEBEZIUM_VERSION)
        return _json(out)

    def plugin(request: Request) -> str:
        name = request.path_params["plugin"]
        cls = connect_validate.plugin_class(name)
        if cls is None:
            raise HttpError(404, f"Unknown plugin {name}.")
        return cls

    async def plugin_config(request: Request) -> Response:
        return _json(connect_validate.config_keys(plugin(request)))

    async def plugin_validate(request: Request) -> Response:
        name = request.path_params["plugin"]
        config = _config_map(await request_body(request))
        cls = connect_validate.plugin_class(name)
        # the body as sent (raw by design): its class is compared with the URL's plugin before validation
        included = config.get("connector.class")
        if included is not None and connect_validate.plugin_class(str(included)) != cls:
            raise HttpError(400, f"Included connector type {included} does not match request type {name}")
        if cls is None:
            raise (
                HttpError(400, f"Unknown plugin {name}.")
                if included is None
                else HttpError(400, plugin_of({"connector.class": str(included)}))
            )
        props = {str(k): _text(v) for k, v in config.items() if v is not None}
        infos = await run_in_threadpool(
            connect_validate.validate, cls, props, connect=worker.check_connection
        )
        return _json(infos)

    async def list_connectors(request: Request) -> Response:
        expand = request.query_params.getlist("expand")
        names = sorted(worker.connectors)
        if not expand:
            return _json(names)
        out: dict[str, Any] = {}
        for n in names:
            c = worker.connectors.get(n)
            if c is None:
                continue
            entry: dict[str, Any] = {}
            if "status" in expand:
                entry["status"] = c.status()
            if "info" in expand:
                entry["info"] = c.info()
            out[n] = entry
        return _json(out)

    async def create(request: Request) -> Response:
        req = await request_body(request)
        if not isinstance(req, dict):
            raise HttpError(400, 'Request body must be a JSON object with "name" and "config"')
        config = req.get("config")
        if not isinstance(config, dict):
            raise HttpError(400, "Connector config is null or not a JSON object")
        name = req.get("name")
        if name is None:
            name = config.get("name")  # the body as sent (raw by design): needed before validation
        if not isinstance(name, str):
            name = "" if name is None else str(name)
        name = name.strip()  # as ConnectorsResource.createConnector
        _, c = await run_in_threadpool(worker.create, name, config)
        return _json(c.info(), 201, {"Location": f"/connectors/{_quote(name)}"})

    async def get_connector(request: Request) -> Response:
        return _json(worker.get(connector_name(request)).info())

    async def delete_connector(request: Request) -> Response:
        await run_in_threadpool(worker.delete, connector_name(request))
        return Response(status_code=204)

    async def get_config(request: Request) -> Response:
        return _json(worker.get(connector_name(request)).config)

    async def put_config(request: Request) -> Response:
        name = connector_name(request)
        config = _config_map(await request_body(request))
        created, c = await run_in_threadpool(lambda: worker.create(name, config, allow_update=True))
        if created:
            return _json(c.info(), 201, {"Location": f"/connectors/{_quote(name)}"})
        return _json(c.info())

    async def patch_config(request: Request) -> Response:
        name = connector_name(request)
        patch = _config_map(await request_body(request), "Connector config patch")
        worker.get(name)
        c = await run_in_threadpool(worker.patch, name, patch)
        return _json(c.info())

    async def status(request: Request) -> Response:
        return _json(worker.get(connector_name(request)).status())

    async def tasks(request: Request) -> Response:
        name = connector_name(request)
        c = worker.get(name)
        if c.target == "STOPPED":
            return _json([])
        return _json([{"id": {"connector": name, "task": 0}, "config": c.config}])

    def task_id(request: Request) -> int:
        raw = request.path_params["task"]
        if not raw.lstrip("-").isdigit():
            raise HttpError(404, "HTTP 404 Not Found")
        return int(raw)

    async def task_status(request: Request) -> Response:
        name = connector_name(request)
        t = task_id(request)
        st = worker.get(name).status()
        if t != 0 or not st["tasks"]:
            raise HttpError(404, f"No status found for task {name}-{t}")
        return _json(st["tasks"][0])

    async def task_restart(request: Request) -> Response:
        name = connector_name(request)
        t = task_id(request)
        c = worker.get(name)
        if t != 0 or c.target == "STOPPED":
            raise HttpError(404, f"Task {name}-{t} not found")
        await run_in_threadpool(worker.restart, name)
        return Response(status_code=204)

    async def restart(request: Request) -> Response:
        name = connector_name(request)
        include_tasks, only_failed = _flag(request, "includeTasks"), _flag(request, "onlyFailed")
        worker.get(name)
        if not include_tasks and not only_failed:
            await run_in_threadpool(worker.restart, name)
            return Response(status_code=204)
        await run_in_threadpool(worker.restart, name, only_failed)
        return _json(worker.get(name).status(), 202)

    def target(state: str, code: int):
        async def handler(request: Request) -> Response:
            name = connector_name(request)
            worker.get(name)
            await run_in_threadpool(worker.set_target, name, state)
            return Response(status_code=code)

        return handler

    async def get_offsets(request: Request) -> Response:
        name = connector_name(request)
        worker.get(name)
        return _json({"offsets": await run_in_threadpool(worker.offsets, name)})

    async def alter_offsets(request: Request) -> Response:
        name = connector_name(request)
        body = await request_body(request)
        return _json(await run_in_threadpool(worker.alter_offsets, name, body))

    async def reset_offsets(request: Request) -> Response:
        return _json(await run_in_threadpool(worker.reset_offsets, connector_name(request)))

    async def topics(request: Request) -> Response:
        name = connector_name(request)
        return _json({name: {"topics": worker.get(name).active_topics()}})

    async def reset_topics(request: Request) -> Response:
        worker.get(connector_name(request)).reset_topics()
        return Response(status_code=202)

    async def connector_metrics(request: Request) -> Response:
        c = worker.get(connector_name(request))
        if c.metrics is None:
            from emulator.metrics import ConnectorMetrics

            m = ConnectorMetrics()
        else:
            m = c.metrics
        return _json({"name": c.name, "plugin": m.plugin, "server": m.server, **m.as_dict()})

    async def prometheus(request: Request) -> Response:
        from emulator.metrics_prometheus import CONTENT_TYPE, exposition, registry_for

        return Response(exposition(registry_for(worker.metrics)), media_type=CONTENT_TYPE)

    # -- /admin/loggers
    def known_loggers() -> dict[str, logging.Logger]:
        out = {"root": logging.getLogger()}
        for n, lg in list(logging.Logger.manager.loggerDict.items()):
            if isinstance(lg, logging.Logger):
                out[n] = lg
        return out

    def level_info(name: str, lg: logging.Logger) -> dict[str, Any]:
        return {
            "level": _level_name(lg.getEffectiveLevel()),
            "last_modified": worker.loggers_modified.get(name),
        }

    async def loggers(request: Request) -> Response:
        # as Connect: the root logger and every logger with a level of its own
        return _json(
            {
                n: level_info(n, lg)
                for n, lg in sorted(known_loggers().items())
                if n == "root" or lg.level != logging.NOTSET
            }
        )

    async def get_logger(request: Request) -> Response:
        name = request.path_params["logger"]
        lg = known_loggers().get(name)
        if lg is None:
            raise HttpError(404, f"Logger {name} not found.")
        return _json(level_info(name, lg))

    async def set_logger(request: Request) -> Response:
        name = request.path_params["logger"]
        body = _config_map(await request_body(request), "Request body")
        level = body.get("level")
        if level is None:
            raise HttpError(400, "Desired 'level' parameter was not specified in request.")
        py = _LOG4J_TO_PY.get(str(level).upper())
        if py is None:
            raise HttpError(404, f"invalid log level '{level}'.")
        root = logging.getLogger() if name == "root" else logging.getLogger(name)
        affected = [name]
        root.setLevel(py)
        now = int(time.time() * 1000)
        worker.loggers_modified[name] = now
        if name != "root":
            for n, lg in known_loggers().items():
                if n.startswith(name + ".") and lg.level != logging.NOTSET:
                    lg.setLevel(py)
                    worker.loggers_modified[n] = now
                    affected.append(n)
        if request.query_params.get("scope", "worker").lower() == "cluster":
            return Response(status_code=204)
        return _json(sorted(affected))

    # -- errors: always Connect's JSON body
    async def http_error(request: Request, exc: HttpError) -> Response:
        return error_response(
            exc.code, exc.message, {"Connection": "close"} if exc.code in (408, 413) else None
        )

    async def starlette_error(request: Request, exc: HTTPException) -> Response:
        return error_response(
            exc.status_code,
            f"HTTP {exc.status_code} {REASONS.get(exc.status_code, exc.detail)}",
            getattr(exc, "headers", None),
        )

    async def server_error(request: Request, exc: Exception) -> Response:
        log.error("REST %s %s failed: %s: %s", request.method, request.url.path, type(exc).__name__, exc)
        return error_response(500, f"{type(exc).__name__}: {exc}")

    c = "/connectors/{name}"
    routes = [
        Route("/", root, methods=["GET"]),
        Route("/connector-plugins", plugins, methods=["GET"]),
        Route("/connector-plugins/{plugin}/config", plugin_config, methods=["GET"]),
        Route("/connector-plugins/{plugin}/config/validate", plugin_validate, methods=["PUT"]),
        Route("/connectors", list_connectors, methods=["GET"]),
        Route("/connectors", create, methods=["POST"]),
        Route(c, get_connector, methods=["GET"]),
        Route(c, delete_connector, methods=["DELETE"]),
        Route(c + "/config", get_config, methods=["GET"]),
        Route(c + "/config", put_config, methods=["PUT"]),
        Route(c + "/config", patch_config, methods=["PATCH"]),
        Route(c + "/status", status, methods=["GET"]),
        Route(c + "/tasks", tasks, methods=["GET"]),
        Route(c + "/tasks/{task}/status", task_status, methods=["GET"]),
        Route(c + "/tasks/{task}/restart", task_restart, methods=["POST"]),
        Route(c + "/restart", restart, methods=["POST"]),
        Route(c + "/pause", target("PAUSED", 202), methods=["PUT"]),
        Route(c + "/resume", target("RUNNING", 202), methods=["PUT"]),
        Route(c + "/stop", target("STOPPED", 204), methods=["PUT"]),
        Route(c + "/offsets", get_offsets, methods=["GET"]),
        Route(c + "/offsets", alter_offsets, methods=["PATCH"]),
        Route(c + "/offsets", reset_offsets, methods=["DELETE"]),
        Route(c + "/topics", topics, methods=["GET"]),
        Route(c + "/topics/reset", reset_topics, methods=["PUT"]),
        Route(c + "/metrics", connector_metrics, methods=["GET"]),
        Route("/metrics", prometheus, methods=["GET"]),
        Route("/admin/loggers", loggers, methods=["GET"]),
        Route("/admin/loggers/{logger}", get_logger, methods=["GET"]),
        Route("/admin/loggers/{logger}", set_logger, methods=["PUT"]),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HttpError: http_error, HTTPException: starlette_error, Exception: server_error},
    )
    return LimitHeaders(app)


def _quote(name: str) -> str:
    import urllib.parse

    return urllib.parse.quote(name, safe="")


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
