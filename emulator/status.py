"""`python -m emulator status [--url URL]`: what a running worker's connectors are doing (state, snapshot
progress, streaming rate and lag), read from its REST API; and the standalone runner's metrics endpoint
(`python -m emulator run --metrics-port`), which answers the same paths."""

from __future__ import annotations

import json
import socket
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from typing import Any


def serve_metrics(runner, config, host: str, port: int) -> threading.Thread:
    """Serve `/metrics` and the JSON paths for one standalone connector from a daemon thread."""
    import uvicorn

    from emulator.rest_http import uvicorn_config
    from emulator.rest_metrics import metrics_app
    from emulator.settings import settings_for

    s = settings_for(config)
    name = s.common.name or s.topics.prefix or "connector"

    def state() -> str:
        return "UNASSIGNED" if runner.engine.stopping else "RUNNING"

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))  # here, so a taken port is an error at start, not a log line in a thread
    server = uvicorn.Server(uvicorn_config(metrics_app(lambda: [(name, runner.metrics, state)]), host, port))
    t = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="metrics-http", daemon=True)
    t.start()
    return t


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read() or b"null")


def describe(name: str, status: dict[str, Any], m: dict[str, Any]) -> list[str]:
    tasks = status.get("tasks") or []
    state = status.get("connector", {}).get("state", "?")
    task_state = tasks[0]["state"] if tasks else "-"
    lines = [
        f"{name}: connector {state}, task {task_state}"
        + (f" ({m.get('plugin')}, topic.prefix {m.get('server')})" if m.get("plugin") else "")
    ]
    if tasks and tasks[0].get("trace"):
        lines.append("  failure: " + tasks[0]["trace"].strip().splitlines()[-1])
    snap, st = m.get("snapshot") or {}, m.get("streaming") or {}
    if snap.get("TotalTableCount"):
        phase = (
            "running"
            if snap.get("SnapshotRunning")
            else "completed"
            if snap.get("SnapshotCompleted")
            else "aborted"
            if snap.get("SnapshotAborted")
            else "not started"
        )
        done = snap["TotalTableCount"] - snap.get("RemainingTableCount", 0)
        rows = snap.get("TotalNumberOfEventsSeen", 0)
        secs = snap.get("SnapshotDurationInSeconds", 0)
        rate = rows / secs if secs else 0.0
        lines.append(
            f"  snapshot {phase}: {done} of {snap['TotalTableCount']} tables, {rows} rows in {secs} s"
            + (f" ({rate:.0f} rows/s)" if secs else "")
        )
        for table, n in sorted((snap.get("RowsScanned") or {}).items()):
            lines.append(f"    {table}: {n} rows")
    if st:
        lag = st.get("MilliSecondsBehindSource", -1)
        lines.append(
            f"  streaming: {'connected' if st.get('Connected') else 'not connected'}, "
            f"{st.get('TotalNumberOfEventsSeen', 0)} events (c {st.get('TotalNumberOfCreateEventsSeen', 0)}, "
            f"u {st.get('TotalNumberOfUpdateEventsSeen', 0)}, d {st.get('TotalNumberOfDeleteEventsSeen', 0)}), "
            f"{st.get('NumberOfCommittedTransactions', 0)} transactions, "
            + (f"{lag} ms behind source" if lag is not None and lag >= 0 else "no event yet")
        )
        pos = st.get("SourceEventPosition")
        if pos:
            lines.append("  position: " + ", ".join(f"{k}={v}" for k, v in sorted(pos.items())))
    return lines


def status(url: str, only: list[str] | None = None) -> int:
    base = url.rstrip("/")
    try:
        names = only or _get(base + "/connectors")
        out: list[str] = []
        for n in names:
            q = urllib.parse.quote(n, safe="")
            out.extend(
                describe(n, _get(f"{base}/connectors/{q}/status"), _get(f"{base}/connectors/{q}/metrics"))
            )
    except urllib.error.HTTPError as e:
        try:
            msg = json.loads(e.read()).get("message")
        except ValueError:
            msg = e.reason
        print(f"error: {url}: HTTP {e.code}: {msg}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as e:
        print(f"error: cannot read {url}: {getattr(e, 'reason', e)}", file=sys.stderr)
        return 1
    print("\n".join(out) if out else "no connectors")
    return 0
