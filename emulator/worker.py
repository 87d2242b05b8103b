"""A Kafka Connect worker's REST API (`python -m emulator connect`): connectors registered over HTTP run in
this process, a `Runner` thread each, and survive a restart of the worker.

Endpoints, response shapes and status codes follow Kafka Connect's `ConnectorsResource` /
`ConnectorPluginsResource` / `RootResource`:

    GET    /                                  {"version", "commit", "kafka_cluster_id"}
    GET    /connector-plugins                 [{"class", "type": "source", "version"}]
    GET    /connectors[?expand=status|info]   ["name", ...] or {name: {"status": ..., "info": ...}}
    POST   /connectors                        201 {"name", "config", "tasks", "type"}; 409 if it exists
    GET    /connectors/{name}                 {"name", "config", "tasks", "type"}
    GET    /connectors/{name}/config          {config}
    PUT    /connectors/{name}/config          201 created / 200 updated, {"name", "config", "tasks", "type"}
    GET    /connectors/{name}/status          {"name", "connector": {"state", "worker_id"}, "tasks": [...], "type"}
    GET    /connectors/{name}/tasks           [{"id": {"connector", "task"}, "config"}]
    GET    /connectors/{name}/offsets         {"offsets": [{"partition", "offset"}]}
    PUT    /connectors/{name}/pause|resume    202
    PUT    /connectors/{name}/stop            204
    POST   /connectors/{name}/restart         204 (202 + status with ?includeTasks / ?onlyFailed)
    POST   /connectors/{name}/tasks/0/restart 204
    DELETE /connectors/{name}                 204

Errors are `{"error_code": N, "message": "..."}`: 404 for an unknown connector, 409 for a duplicate, 400 for
an invalid configuration (the emulator's own validation, `emulator.config.from_dict`), 500 otherwise.

State under `--state DIR`: `connectors/<name>.json` (config and target state: RUNNING / PAUSED / STOPPED)
and, unless the connector configures `offset.storage.file.filename` or `offset.storage.topic`,
`offsets/<name>.json`.  With `--out DIR` each connector writes `DIR/<name>/<topic>.jsonl`.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from emulator.config import CONNECTOR_CLASSES, ConfigError, from_dict

log = logging.getLogger("emulator.worker")

KAFKA_VERSION = "4.1.0"  # the Kafka Connect runtime Debezium 3.6 images ship; reported by GET /
DEBEZIUM_VERSION = "3.6.3.Final"


class HttpError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _safe(name: str) -> str:
    return urllib.parse.quote(name, safe="") or "_"


def supported_classes() -> list[str]:
    from emulator.runner import connector_class

    class _Probe:
        def __init__(self, cls: str) -> None:
            self.cls = cls

        def get(self, name: str) -> str | None:
            return self.cls if name == "connector.class" else None

    out = []
    for cls in CONNECTOR_CLASSES:
        try:
            connector_class(_Probe(cls))
            out.append(cls)
        except Exception:  # noqa: BLE001 - not available in this build
            pass
    return out


class Connector:
    """One registered connector: its config, its target state and the thread running it."""

    def __init__(self, worker: Worker, name: str, config: dict[str, str], target: str = "RUNNING") -> None:
        self.worker = worker
        self.name = name
        self.config = config
        self.target = target
        self.state = "UNASSIGNED"
        self.trace: str | None = None
        self.runner = None
        self.thread: threading.Thread | None = None
        self.lock = threading.RLock()

    # -- lifecycle
    def start(self) -> None:
        with self.lock:
            if self.thread is not None and self.thread.is_alive():
                return
            if self.target != "RUNNING":
                self.state = self.target
                return
            self.trace = None
            try:
                self.runner = self.worker.make_runner(self.name, self.config)
            except Exception as e:  # noqa: BLE001
                self.state = "FAILED"
                self.trace = "".join(traceback.format_exception(e))
                log.error("connector %s failed to start: %s", self.name, e)
                return
            self.state = "RUNNING"
            self.thread = threading.Thread(target=self._run, name=f"connector-{self.name}", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        runner = self.runner
        try:
            runner.run()
            with self.lock:
                if self.runner is runner and self.state == "RUNNING" and not runner.engine.stopping:
                    self.state = "UNASSIGNED"  # finished by itself (initial_only snapshot)
        except Exception as e:  # noqa: BLE001
            log.error("connector %s failed: %s", self.name, e)
            with self.lock:
                if self.runner is runner:
                    self.state = "FAILED"
                    self.trace = "".join(traceback.format_exception(e))

    def stop(self, timeout: float = 30.0) -> None:
        with self.lock:
            runner, thread = self.runner, self.thread
            self.runner = self.thread = None
        if runner is not None:
            runner.stop()
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                log.warning("connector %s did not stop within %.0f s", self.name, timeout)

    # -- REST shapes
    def info(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "config": self.config,
            "tasks": [{"connector": self.name, "task": 0}] if self.target != "STOPPED" else [],
            "type": "source",
        }

    def status(self) -> dict[str, Any]:
        wid = self.worker.worker_id
        conn_state = self.state if self.state != "FAILED" else "RUNNING"
        connector: dict[str, Any] = {"state": conn_state, "worker_id": wid}
        tasks: list[dict[str, Any]] = []
        if self.target != "STOPPED":
            task: dict[str, Any] = {"id": 0, "state": self.state, "worker_id": wid}
            if self.state == "FAILED" and self.trace:
                task["trace"] = self.trace
            tasks.append(task)
        else:
            connector["state"] = "STOPPED"
        return {"name": self.name, "connector": connector, "tasks": tasks, "type": "source"}


class Worker:
    def __init__(
        self,
        state_dir: str | Path,
        *,
        kafka: str | None = None,
        out: str | Path | None = None,
        worker_id: str = "127.0.0.1:8083",
    ) -> None:
        self.state_dir = Path(state_dir)
        (self.state_dir / "connectors").mkdir(parents=True, exist_ok=True)
        (self.state_dir / "offsets").mkdir(parents=True, exist_ok=True)
        self.kafka = kafka
        self.out = Path(out) if out else None
        self.worker_id = worker_id
        self.connectors: dict[str, Connector] = {}
        self.lock = threading.RLock()

    # -- persistence
    def _path(self, name: str) -> Path:
        return self.state_dir / "connectors" / f"{_safe(name)}.json"

    def _persist(self, c: Connector) -> None:
        p = self._path(c.name)
        tmp = p.with_name(p.name + ".tmp")
        with open(tmp, "w") as f:
            json.dump({"name": c.name, "config": c.config, "target": c.target}, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)

    def load(self) -> None:
        for p in sorted((self.state_dir / "connectors").glob("*.json")):
            try:
                doc = json.loads(p.read_text())
                c = Connector(self, doc["name"], doc["config"], doc.get("target", "RUNNING"))
            except (OSError, ValueError, KeyError) as e:
                log.error("ignoring %s: %s", p, e)
                continue
            self.connectors[c.name] = c
            log.info("restarting connector %s (%s)", c.name, c.target)
            c.start()

    # -- running a connector
    def validate(self, name: str, config: dict[str, Any]):
        from emulator.connect.dataplane import validate_transforms
        from emulator.runner import connector_class

        try:
            cfg = from_dict(config, source_format="connect-json")
            connector_class(cfg)
            validate_transforms(cfg)  # a bad SMT option is a 400 at creation, as on Connect
        except (ConfigError, ValueError) as e:
            raise HttpError(
                400,
                "Connector configuration is invalid and contains the following 1 error(s):\n"
                f"{e}\nYou can also find the above list of errors at the endpoint "
                "`/connector-plugins/{connectorType}/config/validate`",
            ) from None
        return cfg

    def make_runner(self, name: str, config: dict[str, str]):
        from emulator.runner import Runner

        props = dict(config)
        if (
            "offset.storage.file.filename" not in props
            and "offset.storage.topic" not in props
            and (props.get("exactly.once.source.support") or "").lower() != "enabled"
        ):
            props["offset.storage.file.filename"] = str(self.state_dir / "offsets" / f"{_safe(name)}.json")
        cfg = from_dict(props, source_format="connect-json")
        if self.kafka:
            from emulator.outputs.kafka import kafka_output

            output = kafka_output(cfg, self.kafka)
        else:
            from emulator.outputs.directory import DirectoryOutput

            output = DirectoryOutput(self.out / _safe(name))
        try:
            return Runner(cfg, output)
        except Exception:
            output.close()
            raise

    def offsets(self, name: str) -> list[dict[str, Any]]:
        from emulator.runner import offset_store, partition_of

        c = self.get(name)
        props = dict(c.config)
        props.setdefault(
            "offset.storage.file.filename", str(self.state_dir / "offsets" / f"{_safe(name)}.json")
        )
        cfg = from_dict(props, source_format="connect-json")
        if cfg.props.get("offset.storage.topic"):
            from emulator.runner import kafka_offset_store

            store = kafka_offset_store(cfg, None, cfg.props["offset.storage.topic"], self.kafka)
        else:
            store = offset_store(cfg)
        offset = store.load()
        return [{"partition": partition_of(cfg), "offset": offset}] if offset is not None else []

    # -- operations
    def get(self, name: str) -> Connector:
        c = self.connectors.get(name)
        if c is None:
            raise HttpError(404, f"Connector {name} not found")
        return c

    def create(
        self, name: str, config: dict[str, Any], *, allow_update: bool = False
    ) -> tuple[bool, Connector]:
        if not name or not name.strip():
            raise HttpError(400, "Connector name is null or empty.")
        if any(ord(ch) < 32 for ch in name):
            raise HttpError(400, "Connector name contains control characters")
        if "name" in config and str(config["name"]) != name:
            raise HttpError(
                400,
                f"Connector name configuration ({config['name']}) doesn't match connector "
                f"name in the URL ({name})",
            )
        clean = {
            str(k): str(v) if not isinstance(v, bool) else ("true" if v else "false")
            for k, v in config.items()
            if v is not None
        }
        clean["name"] = name
        self.validate(name, clean)
        with self.lock:
            old = self.connectors.get(name)
            if old is not None and not allow_update:
                raise HttpError(409, f"Connector {name} already exists")
            target = old.target if old is not None else "RUNNING"
            if old is not None:
                old.stop()
            c = Connector(self, name, clean, target)
            self.connectors[name] = c
            self._persist(c)
        c.start()
        return old is None, c

    def delete(self, name: str) -> None:
        with self.lock:
            c = self.get(name)
            del self.connectors[name]
            self._path(name).unlink(missing_ok=True)
        c.stop()

    def set_target(self, name: str, target: str) -> None:
        c = self.get(name)
        with self.lock:
            c.target = target
            self._persist(c)
        if target == "RUNNING":
            c.start()
        else:
            c.stop()
            c.state = target

    def restart(self, name: str, only_failed: bool = False) -> None:
        c = self.get(name)
        if only_failed and c.state != "FAILED":
            return
        c.stop()
        c.state = "RESTARTING"
        c.start()

    def shutdown(self) -> None:
        for c in list(self.connectors.values()):
            c.stop()


# ------------------------------------------------------------------------------------------ HTTP


def make_handler(worker: Worker):
    class Handler(BaseHTTPRequestHandler):
        server_version = "Jetty(emulator)"
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args: Any) -> None:
            log.debug("%s " + fmt, self.address_string(), *args)

        def _send(self, code: int, body: Any = None) -> None:
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(code)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if data:
                self.wfile.write(data)

        def _body(self) -> Any:
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            if not raw.strip():
                return None
            try:
                return json.loads(raw)
            except ValueError as e:
                raise HttpError(400, f"Cannot deserialize request body: {e}") from None

        def _dispatch(self, method: str) -> None:
            try:
                url = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(url.query)
                parts = [urllib.parse.unquote(p) for p in url.path.split("/") if p]
                code, body = route(
                    worker, method, parts, query, self._body if method in ("POST", "PUT") else None
                )
                self._send(code, body)
            except HttpError as e:
                self._send(e.code, {"error_code": e.code, "message": e.message})
            except Exception as e:  # noqa: BLE001
                log.exception("REST %s %s", method, self.path)
                self._send(500, {"error_code": 500, "message": f"{type(e).__name__}: {e}"})

        def do_GET(self) -> None:  # noqa: N802
            self._dispatch("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._dispatch("POST")

        def do_PUT(self) -> None:  # noqa: N802
            self._dispatch("PUT")

        def do_DELETE(self) -> None:  # noqa: N802
            self._dispatch("DELETE")

    return Handler


def _flag(query: dict[str, list[str]], name: str) -> bool:
    return any(v.lower() == "true" for v in query.get(name, []))


def route(
    worker: Worker, method: str, parts: list[str], query: dict[str, list[str]], body
) -> tuple[int, Any]:
    if not parts:
        if method == "GET":
            return 200, {
                "version": KAFKA_VERSION,
                "commit": "dbz-emulator",
                "kafka_cluster_id": "dbz-emulator",
            }
        raise HttpError(405, "HTTP 405 Method Not Allowed")
    if parts[0] == "connector-plugins":
        if len(parts) == 1 and method == "GET":
            return 200, [
                {"class": c, "type": "source", "version": DEBEZIUM_VERSION} for c in supported_classes()
            ]
        raise HttpError(404, "HTTP 404 Not Found")
    if parts[0] != "connectors":
        raise HttpError(404, "HTTP 404 Not Found")
    if len(parts) == 1:
        if method == "GET":
            expand = query.get("expand", [])
            names = sorted(worker.connectors)
            if not expand:
                return 200, names
            out = {}
            for n in names:
                c = worker.connectors[n]
                entry = {}
                if "status" in expand:
                    entry["status"] = c.status()
                if "info" in expand:
                    entry["info"] = c.info()
                out[n] = entry
            return 200, out
        if method == "POST":
            req = body()
            if not isinstance(req, dict):
                raise HttpError(400, 'Request body must be a JSON object with "name" and "config"')
            name, config = req.get("name"), req.get("config")
            if config is None or not isinstance(config, dict):
                raise HttpError(400, "Connector config is null or not an object")
            if name is None:
                name = config.get("name")
            if not isinstance(name, str):
                raise HttpError(400, "Connector name is null or empty.")
            _, c = worker.create(name, config)
            return 201, c.info()
        raise HttpError(405, "HTTP 405 Method Not Allowed")
    name = parts[1]
    rest = parts[2:]
    if not rest:
        if method == "GET":
            return 200, worker.get(name).info()
        if method == "DELETE":
            worker.delete(name)
            return 204, None
        raise HttpError(405, "HTTP 405 Method Not Allowed")
    action = rest[0]
    if action == "config" and len(rest) == 1:
        if method == "GET":
            return 200, worker.get(name).config
        if method == "PUT":
            config = body()
            if not isinstance(config, dict):
                raise HttpError(400, "Connector config is null or not an object")
            created, c = worker.create(name, config, allow_update=True)
            return (201 if created else 200), c.info()
    elif action == "status" and len(rest) == 1 and method == "GET":
        return 200, worker.get(name).status()
    elif action == "tasks" and method == "GET" and len(rest) == 1:
        c = worker.get(name)
        return 200, [
            {"id": {"connector": name, "task": 0}, "config": c.config}
        ] if c.target != "STOPPED" else []
    elif action == "tasks" and len(rest) == 3 and rest[2] == "restart" and method == "POST":
        if rest[1] != "0":
            raise HttpError(404, f"Task {name}-{rest[1]} not found")
        worker.restart(name)
        return 204, None
    elif action == "tasks" and len(rest) == 3 and rest[2] == "status" and method == "GET":
        st = worker.get(name).status()
        if rest[1] != "0" or not st["tasks"]:
            raise HttpError(404, f"No status found for task {name}-{rest[1]}")
        return 200, st["tasks"][0]
    elif action == "offsets" and len(rest) == 1 and method == "GET":
        return 200, {"offsets": worker.offsets(name)}
    elif action in ("pause", "resume", "stop") and len(rest) == 1 and method == "PUT":
        worker.get(name)
        worker.set_target(name, {"pause": "PAUSED", "resume": "RUNNING", "stop": "STOPPED"}[action])
        return (204 if action == "stop" else 202), None
    elif action == "restart" and len(rest) == 1 and method == "POST":
        include_tasks, only_failed = _flag(query, "includeTasks"), _flag(query, "onlyFailed")
        worker.restart(name, only_failed)
        if include_tasks or only_failed:
            return 202, worker.get(name).status()
        return 204, None
    raise HttpError(404, "HTTP 404 Not Found")


def serve(args) -> int:
    worker = Worker(
        args.state, kafka=args.kafka, out=args.out, worker_id=f"{args.rest_host}:{args.rest_port}"
    )
    server = ThreadingHTTPServer((args.rest_host, args.rest_port), make_handler(worker))
    server.daemon_threads = True

    def on_signal(signum, frame):  # noqa: ARG001
        log.info("signal %d: stopping the worker", signum)
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    worker.load()
    log.info(
        "Kafka Connect REST API on http://%s:%d (%s)",
        args.rest_host,
        server.server_address[1],
        f"Kafka {args.kafka}" if args.kafka else f"directory {args.out}",
    )
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        worker.shutdown()
    return 0
