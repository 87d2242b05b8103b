"""Command line: `python -m emulator run CONFIG (--out DIR | --stdout | --kafka HOST:PORT)`,
`python -m emulator connect --rest-port PORT (--kafka HOST:PORT | --out DIR) --state DIR` and
`python -m emulator status [--url URL]`."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import traceback
from typing import NoReturn

from emulator.config import ConfigError, load_config


def _run(args: argparse.Namespace) -> int:
    from emulator.runner import Runner

    try:
        config = load_config(args.config)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from emulator.connectors.registry import connector_class

    try:
        connector_class(config.connector_class)
        from emulator.connect import dataplane

        # transforms, predicates and converters: bad input before any connection; built once, for the Runner
        plane = dataplane.build(config) or dataplane.NONE
    except ValueError as e:  # ConfigError included
        print(f"error: {e}", file=sys.stderr)
        return 2
    from emulator.preflight import ConnectError, check

    try:  # validate and connect first: a cause that retrying cannot cure is one line, now
        check(config)
    except ConnectError as e:
        if not e.transient:
            print(f"error: {e}", file=sys.stderr)
            return 1
        logging.getLogger("emulator").warning("%s; retrying as errors.max.retries says", e)
    if args.out:
        from emulator.outputs.directory import DirectoryOutput

        try:
            output = DirectoryOutput(args.out)
        except OSError as e:
            print(f"error: --out {args.out}: {e.strerror or e}", file=sys.stderr)
            return 2
    elif args.kafka or config.sink_type == "kafka":
        from emulator.outputs.kafka import kafka_output

        try:
            output = kafka_output(config, args.kafka)
        except Exception as e:  # bad producer settings, unreachable transaction coordinator
            print(f"error: Kafka output: {e}", file=sys.stderr)
            return 2
    elif config.sink_type and config.sink_type != "stdout":
        print(
            f"error: debezium.sink.type={config.sink_type} is not supported (kafka is; or use --out DIR)",
            file=sys.stderr,
        )
        return 2
    else:
        from emulator.outputs.stdout import StdoutOutput

        output = StdoutOutput(raw=args.raw)
    try:
        runner = Runner(
            config, output, progress_interval_s=args.progress_interval or None, progress_bar=None, plane=plane
        )
    except (ConfigError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.metrics_port is not None:
        from emulator.status import serve_metrics

        try:
            serve_metrics(runner, config, args.metrics_host, args.metrics_port)
        except OSError as e:
            print(f"error: --metrics-port {args.metrics_port}: {e}", file=sys.stderr)
            return 2

    def on_signal(signum, frame):  # noqa: ARG001
        logging.getLogger("emulator").info("signal %d: stopping", signum)
        runner.stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    runner.run()  # a failure becomes one line in main()
    return 0


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (argparse prints the whole usage first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def _one_line(e: BaseException) -> str:
    text = str(e).strip()
    first = text.splitlines()[0].strip() if text else ""
    return f"{type(e).__name__}: {first}" if first else type(e).__name__


def _debug_flags(p: argparse.ArgumentParser, default: object = False) -> None:
    p.add_argument("-v", "--verbose", action="store_true", default=default, help="debug logging")
    p.add_argument(
        "--debug", action="store_true", default=default, help="debug logging, and the traceback with an error"
    )


def main(argv: list[str] | None = None) -> int:
    """Every error is one line on stderr (exit 2: bad input, 1: failure); `--debug` adds the traceback."""
    ap = _Parser(prog="python -m emulator", description="Debezium-identical change events without the JVM")
    _debug_flags(ap)
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="run one connector")
    _debug_flags(run, argparse.SUPPRESS)
    run.add_argument(
        "config", help=".properties, Kafka Connect JSON, or Debezium Server application.properties"
    )
    dest = run.add_mutually_exclusive_group()
    dest.add_argument("--out", metavar="DIR", help="write DIR/<topic>.jsonl")
    dest.add_argument("--stdout", action="store_true", help="print records (the default)")
    dest.add_argument("--kafka", metavar="HOST:PORT", help="produce to Kafka")
    run.add_argument(
        "--raw",
        "--full",
        dest="raw",
        action="store_true",
        help="with --stdout: the records as JSON, not readable lines with decoded values",
    )
    run.add_argument(
        "--metrics-port",
        type=int,
        metavar="PORT",
        help="serve Prometheus /metrics (and the connector's metrics as JSON) on PORT",
    )
    run.add_argument("--metrics-host", default="127.0.0.1", metavar="ADDR", help="address for --metrics-port")
    run.add_argument(
        "--progress-interval",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="log snapshot progress and streaming rate/lag this often (10; 0: never)",
    )
    conn = sub.add_parser("connect", help="Kafka Connect REST worker: connectors registered over HTTP")
    _debug_flags(conn, argparse.SUPPRESS)
    conn.add_argument("--rest-port", type=int, default=8083, metavar="PORT", help="REST port (8083)")
    conn.add_argument(
        "--rest-host",
        default="127.0.0.1",
        metavar="ADDR",
        help="address to bind (127.0.0.1; 0.0.0.0 in a container)",
    )
    cdest = conn.add_mutually_exclusive_group(required=True)
    cdest.add_argument("--kafka", metavar="HOST:PORT", help="produce to Kafka")
    cdest.add_argument("--out", metavar="DIR", help="write DIR/<connector>/<topic>.jsonl")
    conn.add_argument(
        "--state",
        required=True,
        metavar="DIR",
        help="connector configs, states and (by default) offsets; survives restarts",
    )
    conn.add_argument(
        "--progress-interval",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="log each connector's snapshot progress and streaming rate/lag this often (10; 0: never)",
    )
    st = sub.add_parser("status", help="snapshot progress, streaming lag and metrics of a running worker")
    st.add_argument("--url", default="http://127.0.0.1:8083", help="the worker (or run --metrics-port) URL")
    st.add_argument("connector", nargs="*", help="only these connectors")
    args = ap.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose or args.debug else logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        if args.cmd == "run":
            return _run(args)
        if args.cmd == "connect":
            from emulator.connect_server import serve

            return serve(args)
        if args.cmd == "status":
            from emulator.status import status

            return status(args.url, args.connector)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - the one place every error becomes one line
        if args.debug:
            traceback.print_exc()
        from emulator.statefiles import StateFileError

        # bad input (a property, a corrupted offsets/history file): 2; a failure (e.g. ConnectError): 1
        code = 2 if isinstance(e, ConfigError | StateFileError) else 1
        print(
            f"error: {_one_line(e)}" + ("" if args.debug else " (--debug for the traceback)"), file=sys.stderr
        )
        return code


if __name__ == "__main__":
    sys.exit(main())
