"""`python -m sink warm`: write the driver JVM's class cache (`sink.jvm_cache`) with a run of its own.

The archive is dumped as a JVM exits. Dumping at the exit of a user's run made that run's JVM linger after its
Python process had ended (seconds, a minute on a busy machine) and a caller reading its output waited for it.
Here a throwaway `sink run --once` on a few generated records (a create, an update with a TOAST-free row, a
delete and its tombstone, a truncate: the classes of a whole micro-batch) dumps it; we wait for the whole
process tree (the JVM holds the output pipe until it has written the archive) and then publish the file under
its final name. A user's run that finds no archive starts this in the background (detached, `nice 10`) once per key.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import tempfile

import orjson

TOPIC = "warm.public.t"
TIMEOUT_S = 900
DEC = "org.apache.kafka.connect.data.Decimal"


def _f(typ: str, field: str, optional: bool = True, **kw) -> dict:
    return {"type": typ, "optional": optional, **kw, "field": field}


_ROW = [
    _f("int32", "id", False),
    _f("string", "name"),
    _f("bytes", "amount", name=DEC, version=1, parameters={"scale": "2", "connect.decimal.precision": "12"}),
    _f("double", "score"),
    _f("boolean", "flag"),
    _f("int32", "born", name="io.debezium.time.Date", version=1),
    _f("int64", "at", name="io.debezium.time.MicroTimestamp", version=1),
    _f("string", "zoned", name="io.debezium.time.ZonedTimestamp", version=1),
]
_SOURCE = [
    _f("string", "version", False),
    _f("string", "connector", False),
    _f("string", "name", False),
    _f("int64", "ts_ms", False),
    _f("string", "db", False),
    _f("string", "sequence"),
    _f("string", "schema", False),
    _f("string", "table", False),
    _f("int64", "txId"),
    _f("int64", "lsn"),
]
_KEY = {"type": "struct", "fields": [_ROW[0]], "optional": False, "name": f"{TOPIC}.Key"}
_VALUE = {
    "type": "struct",
    "optional": False,
    "name": f"{TOPIC}.Envelope",
    "version": 2,
    "fields": [
        {"type": "struct", "fields": _ROW, "optional": True, "name": f"{TOPIC}.Value", "field": "before"},
        {"type": "struct", "fields": _ROW, "optional": True, "name": f"{TOPIC}.Value", "field": "after"},
        {
            "type": "struct",
            "fields": _SOURCE,
            "optional": False,
            "name": "io.debezium.connector.postgresql.Source",
            "field": "source",
        },
        _f("string", "op", False),
        _f("int64", "ts_ms"),
    ],
}


def _row(k: int, v: int) -> dict:
    return {
        "id": k,
        "name": f"n{k}-{v}",
        "amount": base64.b64encode((k * 100 + v).to_bytes(4, "big", signed=True)).decode(),
        "score": k / 3 + v,
        "flag": v % 2 == 0,
        "born": 19000 + k,
        "at": 1_700_000_000_000_000 + k,
        "zoned": "2024-01-15T08:30:00.000000Z",
    }


def records() -> bytes:
    """A few JsonConverter records (schemas enabled) as the emulator's directory output writes them."""
    ks, vs = orjson.dumps(_KEY).decode(), orjson.dumps(_VALUE).decode()
    out, lsn = [], 1000
    events = [(k, "r", None, _row(k, 0)) for k in range(1, 6)]
    events += [(2, "u", _row(2, 0), _row(2, 1)), (6, "c", None, _row(6, 0)), (3, "d", _row(3, 0), None)]
    for k, op, before, after in events:
        lsn += 8
        src = {
            "version": "3.6.3.Final",
            "connector": "postgresql",
            "name": "warm",
            "ts_ms": 1_700_000_000_000,
            "db": "warm",
            "sequence": f'[null,"{lsn}"]',
            "schema": "public",
            "table": "t",
            "txId": lsn,
            "lsn": lsn,
        }
        value = {"before": before, "after": after, "source": src, "op": op, "ts_ms": 1_700_000_000_001}
        out.append(
            f'{{"key":{{"schema":{ks},"payload":{{"id":{k}}}}},"value":{{"schema":{vs},"payload":'
            f"{orjson.dumps(value).decode()}}}}}\n"
        )
        if op == "d":
            out.append(f'{{"key":{{"schema":{ks},"payload":{{"id":{k}}}}},"value":null}}\n')
    return "".join(out).encode()


def warm(quiet: bool = False, background: bool = False) -> int:
    """Write the archive for this Java/Spark/submit-arguments key unless it exists; 0 when it exists after.
    `background`: started by a user's run, quiet and at a low priority (the user's next work comes first)."""
    from sink import jvm_cache

    if background:
        quiet = True
        os.nice(10)  # here, not in a preexec_fn: the spawning sink has py4j threads

    final = jvm_cache.archive_path()
    if final is None:
        if not quiet:
            print("sink warm: no class cache here (DBZ_SINK_JVM_CACHE=off, or no java)", flush=True)
        return 0
    if os.path.exists(final):
        if not quiet:
            print(f"sink warm: {final} exists", flush=True)
        return 0
    part = jvm_cache.claim(final)
    if part is None:
        if not quiet:
            print("sink warm: another process is writing the class cache", flush=True)
        return 0
    with tempfile.TemporaryDirectory(prefix="dbz-sink-warm-") as work:
        src = os.path.join(work, "in")
        os.makedirs(src)
        with open(os.path.join(src, f"{TOPIC}.jsonl"), "wb") as f:
            f.write(records())
        cmd = [
            sys.executable,
            "-m",
            "sink",
            "run",
            "--once",
            "--source",
            src,
            "--tables",
            os.path.join(work, "tables"),
            "--checkpoint",
            os.path.join(work, "ck"),
        ]
        env = dict(os.environ, **{jvm_cache.DUMP_ENV: part})
        # reading the output to its end waits for the JVM too: it keeps the pipe open until it has dumped
        try:
            p = subprocess.run(
                cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT_S
            )
        except subprocess.TimeoutExpired:  # never hold the lock for ever (its JVM exits with its parent)
            jvm_cache.release(part)
            if not quiet:
                print(f"sink warm: the run took more than {TIMEOUT_S} s; no class cache written", flush=True)
            return 1
    if p.returncode != 0 or not os.path.exists(part) or os.path.getsize(part) == 0:
        jvm_cache.release(part)
        if not quiet:
            print(f"sink warm: the run failed ({p.returncode}): {p.stdout.strip()[-500:]}", flush=True)
        return 1
    os.replace(part, final)
    jvm_cache.release(part)  # the lock
    removed = jvm_cache.prune(final)
    if not quiet:
        print(f"sink warm: wrote {final} ({os.path.getsize(final) / 2**20:.0f} MB)", flush=True)
        for p in removed:
            print(f"sink warm: removed {p}", flush=True)
    return 0


def warm_in_background() -> None:
    """After a user's run that found no archive: `sink warm` detached, at low priority, output discarded."""
    from sink import jvm_cache

    if os.environ.get(jvm_cache.DUMP_ENV) or os.environ.get("PYSPARK_GATEWAY_PORT"):
        return  # warm's own run; or a JVM we did not start (spark-submit), which gets no options of ours
    from sink.job import given_settings

    if "spark.driver.extraJavaOptions" in given_settings():
        return  # the user's JVM options replace ours: the archive would not be used
    final = jvm_cache.archive_path()
    if final is None or os.path.exists(final) or jvm_cache.being_written(final):
        return
    subprocess.Popen(
        [sys.executable, "-m", "sink", "warm", "--background"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not killed with the caller's terminal or process group
        close_fds=True,
    )
