"""`python -m sink run --source DIR|kafka:HOST:PORT --tables DIR --checkpoint DIR [--once] [--master URL]
[--schema-registry-url URL]`,
`python -m sink show TABLE [--history KEY]`, `python -m sink warm` (the JVM's class cache). Errors are one line on stderr (the traceback with --debug)."""

from __future__ import annotations

import argparse
import os
import sys

# delta-rs (the deltalake wheel) allocates through a jemalloc of its own, which keeps freed pages (10 s, and only
# returns them when it allocates again): the driver held each MERGE's ~80-100 MB into the next batch, and a
# long-running sink held them while it waited for input. A background thread returns them after 0.5 s, and one
# arena instead of one per thread keeps fewer partly used pages: after each of four MERGEs of 45k rows into a
# 200k-row table 305 MB RSS against 388, the same CPU (1.30 against 1.33 s). It does not lower a MERGE's own
# peak (docs/sink.md, session 11). A user's setting wins; jemalloc reads it once, at its first allocation.
ALLOCATOR_DEFAULTS = {
    "_RJEM_MALLOC_CONF": "narenas:1,background_thread:true,dirty_decay_ms:500,muzzy_decay_ms:0"
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m sink", description="Debezium change events → Delta mirror tables"
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the Structured Streaming job")
    r.add_argument("--source", required=True, help="the emulator's --out directory, or kafka:HOST:PORT")
    r.add_argument("--tables", required=True, help="directory of Delta tables, one per topic")
    r.add_argument("--checkpoint", required=True, help="Spark checkpoint directory")
    r.add_argument("--once", action="store_true", help="process what is available now, then exit")
    r.add_argument(
        "--master",
        help="Spark master URL (default: what spark-submit / PYSPARK_SUBMIT_ARGS give, else local[*])",
    )
    r.add_argument(
        "--schema-registry-url",
        metavar="URL",
        help="the schema registry of Avro records (AvroConverter's schema.registry.url); for the directory "
        "output of a mock:// registry, its registry.json is read",
    )
    r.add_argument("--debug", action="store_true", help="tracebacks and Spark's warnings on errors")
    r.add_argument(
        "--trigger-ms",
        type=int,
        default=500,
        metavar="MS",
        help="without --once: start a micro-batch every MS milliseconds when there is new input "
        "(default 500)",
    )
    r.add_argument(
        "--tombstone-retention",
        type=duration,
        default="7d",
        metavar="DURATION",
        help="how long a delete is remembered so that late, older events of its key cannot bring "
        "the row back: 7d (default), 12h, 30m, 90s, or 'forever'",
    )
    r.add_argument(
        "--scd",
        type=int,
        choices=(1, 2),
        default=1,
        help="1 (default): tables mirror the source; 2: history tables, one row per version of each "
        "key with __START_AT / __END_AT (source positions)",
    )
    wm = sub.add_parser(
        "warm", help="write the driver JVM's class cache now (a first run starts this in the background)"
    )
    wm.add_argument("--quiet", action="store_true")
    wm.add_argument("--background", action="store_true", help=argparse.SUPPRESS)
    wm.add_argument("--debug", action="store_true")
    sh = sub.add_parser("show", help="print a mirror or history table")
    sh.add_argument("table", help="the table's directory (under --tables)")
    sh.add_argument(
        "--history", metavar="KEY", help="only the versions of this key: a value, or col=value,..."
    )
    sh.add_argument("--limit", type=int, default=50, help="rows to print (default 50)")
    sh.add_argument("--debug", action="store_true")
    a = ap.parse_args(argv)
    from sink.errors import UsageError

    try:
        if a.cmd == "show":
            global _EXIT_AT_ONCE
            _EXIT_AT_ONCE = True
            from sink.show import show

            return show(a.table, a.history, a.limit)
        if a.cmd == "warm":
            from sink.warm import warm

            return warm(a.quiet, a.background)
        for k, v in ALLOCATOR_DEFAULTS.items():  # before anything imports deltalake
            os.environ.setdefault(k, v)
        from sink.apply import Options
        from sink.job import check_source, run

        check_source(a.source, a.schema_registry_url)
        if a.debug:
            os.environ.setdefault("DBZ_SINK_SPARK_LOG", "WARN")
        else:
            quiet_children()
        rc = run(
            a.source,
            a.tables,
            a.checkpoint,
            a.once,
            trigger_ms=a.trigger_ms,
            opts=Options(tombstone_retention_s=a.tombstone_retention, scd=a.scd),
            master=a.master,
            schema_registry_url=a.schema_registry_url,
        )
        if rc == 0:
            from sink.warm import warm_in_background

            warm_in_background()  # a first run on this machine: the next start maps the class cache
        return rc
    except Exception as e:  # noqa: BLE001 - the CLI's front door: one line, the traceback only on request
        if a.debug:
            raise
        from sink.errors import one_line

        print(f"sink: error: {one_line(e)}", file=sys.stderr, flush=True)
        return 2 if isinstance(e, UsageError) else 1


def quiet_children() -> None:
    """Processes started from here on (the JVM, and the Python workers whose output it relays) write their
    stderr to /dev/null: the JVM's launcher prints warnings that its log configuration cannot silence
    (`Using incubator modules`, the PySpark shell's `Setting default log level`), which broke the one-line
    error. The sink's own lines keep the real stderr (`sys.stderr` is moved to a copy of it); --debug keeps
    everything."""
    sys.stderr.flush()
    err = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    os.close(null)
    sys.stderr = os.fdopen(err, "w", buffering=1, encoding=sys.stderr.encoding, errors="backslashreplace")


def duration(text: str) -> float:
    """'7d', '12h', '30m', '90s' or plain seconds -> seconds; 'forever' -> infinity."""
    t = text.strip().lower()
    if t in ("forever", "inf", "never"):
        return float("inf")
    units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    try:
        if t and t[-1] in units:
            v = float(t[:-1]) * units[t[-1]]
        else:
            v = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a duration: {text!r} (e.g. 7d, 12h, 30m, 90s, forever)"
        ) from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"negative duration: {text!r}")
    return v


# `show` reads the table through deltalake (Rust, with its own threads): their native teardown at interpreter exit
# can abort the process ("terminate called without an active exception", exit -6) after everything was printed
# (seen once in a full test run: tests/test_sink_cli.py::test_show_mirror_and_history). It has nothing to clean up,
# so it leaves at once once its output is flushed.
_EXIT_AT_ONCE = False

if __name__ == "__main__":
    rc = main()
    if _EXIT_AT_ONCE:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)
    sys.exit(rc)
