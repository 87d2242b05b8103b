"""Command line: `python -m emulator run CONFIG (--out DIR | --stdout | --kafka HOST:PORT)`,
`python -m emulator connect --rest-port PORT (--kafka HOST:PORT | --out DIR) --state DIR` and
`python -m emulator status [--url URL]`."""

from __future__ import annotations

import argparse
import logging
import signal
import sys

from emulator.config import ConfigError, load_config


def _run(args: argparse.Namespace) -> int:
    from emulator.runner import Runner

    try:
        config = load_config(args.config)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from emulator.runner import connector_class

    try:
        connector_class(config)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.out:
        from emulator.outputs.directory import DirectoryOutput

        output = DirectoryOutput(args.out)
    elif args.kafka or config.sink_type == "kafka":
        from emulator.outputs.kafka import kafka_output

        try:
            output = kafka_output(config, args.kafka)
        except Exception as e:  # bad producer settings, unreachable transaction coordinator
            print(f"error: Kafka output: {e}", file=sys.stderr)
            return 2
    elif config.sink_type and config.sink_type != "stdout":
        print(f"error: debezium.sink.type={config.sink_type} is not supported (kafka is; or use --out DIR)",
              file=sys.stderr)
        return 2
    else:
        from emulator.outputs.stdout import StdoutOutput

        output = StdoutOutput(full=args.full)
    try:
        runner = Runner(config, output, progress_interval_s=args.progress_interval or None, progress_bar=None)
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
    try:
        runner.run()
    except Exception as e:  # one line for the user; the traceback with -v
        logging.getLogger("emulator").debug("failure", exc_info=True)
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m emulator",
                                 description="Debezium-identical change events without the JVM")
    ap.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="run one connector")
    run.add_argument("config", help=".properties, Kafka Connect JSON, or Debezium Server application.properties")
    dest = run.add_mutually_exclusive_group()
    dest.add_argument("--out", metavar="DIR", help="write DIR/<topic>.jsonl")
    dest.add_argument("--stdout", action="store_true", help="print records (the default)")
    dest.add_argument("--kafka", metavar="HOST:PORT", help="produce to Kafka")
    run.add_argument("--full", action="store_true", help="with --stdout: whole records, not summaries")
    run.add_argument("--metrics-port", type=int, metavar="PORT",
                     help="serve Prometheus /metrics (and the connector's metrics as JSON) on PORT")
    run.add_argument("--metrics-host", default="127.0.0.1", metavar="ADDR", help="address for --metrics-port")
    run.add_argument("--progress-interval", type=float, default=10.0, metavar="SECONDS",
                     help="log snapshot progress and streaming rate/lag this often (10; 0: never)")
    conn = sub.add_parser("connect", help="Kafka Connect REST worker: connectors registered over HTTP")
    conn.add_argument("--rest-port", type=int, default=8083, metavar="PORT", help="REST port (8083)")
    conn.add_argument("--rest-host", default="127.0.0.1", metavar="ADDR",
                      help="address to bind (127.0.0.1; 0.0.0.0 in a container)")
    cdest = conn.add_mutually_exclusive_group(required=True)
    cdest.add_argument("--kafka", metavar="HOST:PORT", help="produce to Kafka")
    cdest.add_argument("--out", metavar="DIR", help="write DIR/<connector>/<topic>.jsonl")
    conn.add_argument("--state", required=True, metavar="DIR",
                      help="connector configs, states and (by default) offsets; survives restarts")
    conn.add_argument("--progress-interval", type=float, default=10.0, metavar="SECONDS",
                      help="log each connector's snapshot progress and streaming rate/lag this often (10; 0: never)")
    st = sub.add_parser("status", help="snapshot progress, streaming lag and metrics of a running worker")
    st.add_argument("--url", default="http://127.0.0.1:8083", help="the worker (or run --metrics-port) URL")
    st.add_argument("connector", nargs="*", help="only these connectors")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.cmd == "run":
        return _run(args)
    if args.cmd == "connect":
        from emulator.worker import serve

        return serve(args)
    if args.cmd == "status":
        from emulator.status import status

        return status(args.url, args.connector)
    return 2


if __name__ == "__main__":
    sys.exit(main())
