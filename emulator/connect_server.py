"""`python -m emulator connect`: the Kafka Connect worker (:mod:`emulator.worker`, the model) served over
HTTP by :mod:`emulator.rest_app` on uvicorn.  Kept apart from both so the model never imports its HTTP face
(the worker <-> rest_app import cycle of issue 13)."""

from __future__ import annotations

import logging
import sys

from emulator.rest_app import build_app, uvicorn_config
from emulator.statefiles import StateFileError
from emulator.worker import Worker

log = logging.getLogger("emulator.worker")


def serve(args) -> int:
    """`python -m emulator connect`: the worker on uvicorn until SIGTERM/SIGINT, then every connector
    stopped (offsets committed)."""
    import uvicorn

    worker = Worker(
        args.state, kafka=args.kafka, out=args.out, worker_id=f"{args.rest_host}:{args.rest_port}"
    )
    worker.progress_interval_s = getattr(args, "progress_interval", 10.0) or None
    server = uvicorn.Server(uvicorn_config(build_app(worker), args.rest_host, args.rest_port))
    try:
        worker.load()
    except StateFileError as e:
        print(f"error: state file {e}", file=sys.stderr)
        return 2
    log.info(
        "Kafka Connect REST API on http://%s:%d (%s)",
        args.rest_host,
        args.rest_port,
        f"Kafka {args.kafka}" if args.kafka else f"directory {args.out}",
    )
    try:
        server.run()
    finally:
        worker.shutdown()
    return 0 if server.started else 1
