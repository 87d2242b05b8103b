"""`python -m sink run --source DIR|kafka:HOST:PORT --tables DIR --checkpoint DIR [--once]`."""

from __future__ import annotations

import argparse
import sys


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
        "--trigger-ms",
        type=int,
        default=500,
        metavar="MS",
        help="without --once: start a micro-batch every MS milliseconds when there is new input "
        "(default 500)",
    )
    a = ap.parse_args(argv)
    from sink.job import run

    return run(a.source, a.tables, a.checkpoint, a.once, trigger_ms=a.trigger_ms)


if __name__ == "__main__":
    sys.exit(main())
