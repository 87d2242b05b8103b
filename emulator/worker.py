"""A Kafka Connect worker (`python -m emulator connect`): connectors registered over Kafka Connect's REST
API run in this process, a `Runner` thread each, and survive a restart of the worker.

This module is the worker's model (connectors, their target states, configs, offsets, topics, loggers);
`emulator.rest_app` is its HTTP face (Starlette on uvicorn), with Connect's paths, status codes and JSON
bodies; `docs/rest.md` lists them.

State under `--state DIR` (0700, files 0600): `connectors/<name>.json` (config and target state: RUNNING /
PAUSED / STOPPED) and, unless the connector configures `offset.storage.file.filename` or
`offset.storage.topic`, `offsets/<name>.json`.  With `--out DIR` each connector writes
`DIR/<name>/<topic>.jsonl`.  Connector names are checked (`connect_validate.name_problem`) before they
name any file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import threading
import traceback
import urllib.parse
from pathlib import Path
from typing import Any

from emulator import connect_validate
from emulator.config import CONNECTOR_CLASSES, Config, from_dict
from emulator.settings import settings_for
from emulator.statefiles import StateFileError, private_dir, write_atomic

log = logging.getLogger("emulator.worker")

KAFKA_VERSION = "4.1.0"  # the Kafka Connect runtime Debezium 3.6 images ship; reported by GET /
DEBEZIUM_VERSION = "3.6.3.Final"


class HttpError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _safe(name: str) -> str:
    """A file name for a connector name (already checked by `name_problem`): the name percent-quoted, or a
    hash of it when quoting would make it too long for a file name."""
    quoted = urllib.parse.quote(name, safe="")
    if not quoted or quoted in (".", "..") or len(quoted) > 200:
        return "h-" + hashlib.sha256(name.encode()).hexdigest()
    return quoted


def supported_classes() -> list[str]:
    from emulator.connectors.registry import connector_class

    out = []
    for cls in CONNECTOR_CLASSES:
        try:
            connector_class(cls)
            out.append(cls)
        except Exception:  # noqa: BLE001 - not available in this build
            pass
    return out


# Worker.completeModifyOffsetsCallback for a connector whose alterOffsets() is Connect's default (Debezium's)
_MODIFIED = (
    "The Connect framework-managed offsets for this connector have been {kind} successfully. However, "
    "if this connector manages offsets externally, they will need to be manually {kind} in the system "
    "that the connector uses."
)


def _erase_offset(store) -> None:
    from emulator.offsets import FileOffsetStore

    if isinstance(store, FileOffsetStore):
        store.path.unlink(missing_ok=True)
        return
    from confluent_kafka import Producer

    # the offsets store's partitioner (Java's murmur2): the tombstone lands where the offset record is
    p = Producer({**store.conf, "acks": "all", "enable.idempotence": True, "partitioner": "murmur2_random"})
    p.produce(store.topic, None, store.key)
    if p.flush(30):
        raise HttpError(500, f"the offset tombstone to {store.topic} was not acknowledged")


def _state_problem(doc: Any) -> str | None:
    if not isinstance(doc, dict):
        return "not a JSON object"
    name, config, target = doc.get("name"), doc.get("config"), doc.get("target", "RUNNING")
    if not isinstance(name, str) or connect_validate.name_problem(name):
        return f'"name" is missing or not a valid connector name: {name!r:.80}'
    if not isinstance(config, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in config.items()
    ):
        return '"config" is missing or not an object of strings'
    if target not in ("RUNNING", "PAUSED", "STOPPED"):
        return f'"target" must be RUNNING, PAUSED or STOPPED, not {target!r:.40}'
    return None


def plugin_of(config: dict[str, str]) -> str:
    """The connector class a configuration names; 400 as Connect answers when there is none or it is
    not a plugin of this worker.  Reads the request's dict (raw by design): it runs before validation."""
    raw = config.get("connector.class")
    if raw is None or not raw.strip():
        raise HttpError(400, "Connector config contains no connector type")
    cls = connect_validate.plugin_class(raw.strip())
    if cls is None:
        raise HttpError(
            400,
            f"Failed to find any class that implements Connector and which name matches {raw.strip()}, "
            "available connectors are: " + ", ".join(CONNECTOR_CLASSES),
        )
    return cls


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
        self.metrics = None  # the last runner's emulator.metrics.ConnectorMetrics
        self.topics: set[str] = set()  # active topics (GET /connectors/{name}/topics)
        self._topics_hidden: set[str] = set()

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
                self.trace = "".join(traceback.format_exception(e))  # before the state: status reads both
                self.state = "FAILED"
                log.error("connector %s failed to start: %s", self.name, e)
                return
            self.metrics = self.runner.metrics
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
                    self.trace = "".join(traceback.format_exception(e))  # before the state: status reads both
                    self.state = "FAILED"

    def active_topics(self) -> list[str]:
        """Topics written to since the last reset: what the output has created or opened (Kafka: topics
        it ensured, directory: its files), kept across restarts of the connector in this worker."""
        runner = self.runner
        if runner is not None:
            out = runner.engine.output
            seen = getattr(out, "known_topics", None)
            if seen is None:
                seen = getattr(out, "files", {}).keys()
            self.topics.update(t for t in list(seen) if t not in self._topics_hidden)
        return sorted(self.topics)

    def reset_topics(self) -> None:
        runner = self.runner
        self._topics_hidden = set()
        if runner is not None:
            out = runner.engine.output
            seen = getattr(out, "known_topics", None)
            if seen is None:
                seen = getattr(out, "files", {}).keys()
            self._topics_hidden = set(seen)
        self.topics = set()

    def stop(self, timeout: float = 30.0) -> None:
        self.active_topics()
        with self.lock:
            runner, thread = self.runner, self.thread
            self.runner = self.thread = None
            self._topics_hidden = set()
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
        state = self.state  # read once, then the trace: a failure sets the trace first (no lock here)
        trace = self.trace
        connector: dict[str, Any] = {"state": state if state != "FAILED" else "RUNNING", "worker_id": wid}
        tasks: list[dict[str, Any]] = []
        if self.target != "STOPPED":
            task: dict[str, Any] = {"id": 0, "state": state, "worker_id": wid}
            if state == "FAILED" and trace:
                task["trace"] = trace
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
        for d in (self.state_dir, self.state_dir / "connectors", self.state_dir / "offsets"):
            # the worker's own state holds passwords: owner-only even where the directory already existed
            os.chmod(private_dir(d), 0o700)
        self.kafka = kafka
        self.out = Path(out) if out else None
        self.check_connection = True
        self.worker_id = worker_id
        self.connectors: dict[str, Connector] = {}
        self.lock = threading.RLock()
        self.progress_interval_s: float | None = 10.0
        self.loggers_modified: dict[str, int] = {}

    # -- persistence
    def _path(self, name: str) -> Path:
        return self.state_dir / "connectors" / f"{_safe(name)}.json"

    def _persist(self, c: Connector) -> None:
        doc = {"name": c.name, "config": c.config, "target": c.target}
        write_atomic(self._path(c.name), json.dumps(doc, indent=1).encode())

    def load(self) -> None:
        """The registered connectors from `--state`, then started.  A state file that cannot be read or
        has the wrong shape stops the worker (`StateFileError`, naming it): dropping or re-creating the
        connector silently would re-snapshot or lose it."""
        loaded = []
        for p in sorted((self.state_dir / "connectors").glob("*.json")):
            try:
                os.chmod(p, 0o600)  # files from before state files were private
                doc = json.loads(p.read_bytes())
            except (OSError, ValueError) as e:
                raise StateFileError(p, f"cannot be read as JSON ({e})") from None
            problem = _state_problem(doc)
            if problem:
                raise StateFileError(p, problem)
            loaded.append(Connector(self, doc["name"], dict(doc["config"]), doc.get("target", "RUNNING")))
        for c in loaded:
            self.connectors[c.name] = c
            log.info("restarting connector %s (%s)", c.name, c.target)
            c.start()

    # -- running a connector
    def validate(self, name: str, config: dict[str, str]) -> None:
        """Connect's validation before a create or update: the configuration (transforms, predicates and
        converters included), then the connection."""
        cls = plugin_of(config)
        infos = connect_validate.validate(cls, config, connect=self.check_connection)
        if infos["error_count"]:
            raise HttpError(400, connect_validate.error_message(infos))

    def _connector_config(self, name: str, config: dict[str, str]) -> Config:
        """The validated Config of a registered connector; without offset storage of its own (no file, no
        topic, no exactly-once) its offsets go to a file of this worker's state directory."""
        cfg = from_dict(dict(config), source_format="connect-json")
        offsets = settings_for(cfg).offsets
        if offsets.file_filename is None and offsets.storage_topic is None and not offsets.exactly_once:
            path = str(self.state_dir / "offsets" / f"{_safe(name)}.json")
            cfg = dataclasses.replace(cfg, props={**cfg.props, "offset.storage.file.filename": path})
        return cfg

    def make_runner(self, name: str, config: dict[str, str]):
        from emulator.runner import Runner

        cfg = self._connector_config(name, config)
        if self.kafka:
            from emulator.outputs.kafka import kafka_output

            output = kafka_output(cfg, self.kafka)
        else:
            from emulator.outputs.directory import DirectoryOutput

            output = DirectoryOutput(self.out / _safe(name))
        try:
            return Runner(cfg, output, progress_interval_s=self.progress_interval_s, progress_bar=False)
        except Exception:
            output.close()
            raise

    def _offset_store(self, c: Connector):
        from emulator.connectors.registry import partition_for
        from emulator.runner import kafka_offset_store, offset_store

        cfg = self._connector_config(c.name, c.config)
        if topic := settings_for(cfg).offsets.storage_topic:
            store = kafka_offset_store(cfg, None, topic, self.kafka)
        else:
            store = offset_store(cfg)
        return store, partition_for(settings_for(cfg))

    def offsets(self, name: str) -> list[dict[str, Any]]:
        store, partition = self._offset_store(self.get(name))
        offset = store.load()
        return [{"partition": partition, "offset": offset}] if offset is not None else []

    def _stopped(self, name: str) -> Connector:
        c = self.get(name)
        if c.target != "STOPPED":
            raise HttpError(
                400,
                "Connectors must be in the STOPPED state before their offsets can be modified. This can be done "
                f"for the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint",
            )
        return c

    def alter_offsets(self, name: str, body: Any) -> dict[str, str]:
        """KIP-875 `PATCH /connectors/{name}/offsets`: the connector's one source partition, an offset map or
        null (null erases it)."""
        entries = body.get("offsets") if isinstance(body, dict) else None
        if not entries:
            raise HttpError(400, "Partitions / offsets need to be provided for an alter offsets request")
        c = self._stopped(name)
        store, partition = self._offset_store(c)
        new: dict[str, Any] | None = None
        for e in entries:
            if not isinstance(e, dict) or not isinstance(e.get("partition"), dict):
                raise HttpError(400, 'Each entry needs a "partition" object and an "offset" object or null')
            if e["partition"] != partition:
                raise HttpError(
                    400,
                    f"Partition {json.dumps(e['partition'])} is not a source partition of "
                    f"connector {name}; its partition is {json.dumps(partition)}",
                )
            off = e.get("offset")
            if off is not None and not isinstance(off, dict):
                raise HttpError(400, "The offset of a source partition must be a JSON object or null")
            new = off
        if new is None:
            _erase_offset(store)
        else:
            store.save(new)
        return {"message": _MODIFIED.format(kind="altered")}

    def reset_offsets(self, name: str) -> dict[str, str]:
        c = self._stopped(name)
        store, _ = self._offset_store(c)
        _erase_offset(store)
        return {"message": _MODIFIED.format(kind="reset")}

    def metrics(self) -> list:
        return [c.metrics for c in list(self.connectors.values()) if c.metrics is not None]

    # -- operations
    def get(self, name: str) -> Connector:
        c = self.connectors.get(name)
        if c is None:
            raise HttpError(404, f"Connector {name} not found")
        return c

    def create(
        self, name: str, config: dict[str, Any], *, allow_update: bool = False
    ) -> tuple[bool, Connector]:
        problem = connect_validate.name_problem(name)
        if problem:
            raise HttpError(
                400,
                "Connector configuration is invalid and contains the following 1 error(s):\n"
                f"Invalid value {name} for configuration name: {problem}\n"
                "You can also find the above list of errors at the endpoint "
                "`/connector-plugins/{connectorType}/config/validate`",
            )
        # the body as sent (raw by design): Connect refuses a body naming another connector before validating
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
            if old is not None:
                c.topics = set(old.active_topics())
            self.connectors[name] = c
            self._persist(c)
        c.start()
        return old is None, c

    def patch(self, name: str, patch: dict[str, Any]) -> Connector:
        """`PATCH /connectors/{name}/config`: the patch's keys replace, its nulls remove (KIP-477)."""
        c = self.get(name)
        merged: dict[str, Any] = dict(c.config)
        for k, v in patch.items():
            if v is None:
                merged.pop(k, None)
            else:
                merged[k] = v
        return self.create(name, merged, allow_update=True)[1]

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
