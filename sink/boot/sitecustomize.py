"""Run at the start of every Python process Spark starts from the sink's driver: drop Spark's pyspark/py4j zips.

Spark puts `$SPARK_HOME/python/lib/pyspark.zip` (and py4j's zip) first on the `PYTHONPATH` of every Python
process it starts, and Python caches no bytecode for zip imports: each process compiles pyspark's modules again
(`import pyspark.daemon, pyspark.sql.worker.plan_data_source_read`: 0.75-0.8 CPU-s from the zip against
0.22-0.27 s from a pip install's files). `spark.python.daemon.module=sink.daemon` avoids that for the executors'
workers, but the processes that plan the query (the data-source lookup, create and plan workers, each a daemon
and a forked worker) and the stream's offset runner are started with `pyspark.daemon` / as plain modules
whatever the settings say: they ran one after another before the first micro-batch. Their only other entry
point is the interpreter's own start: Python imports the first `sitecustomize` on `sys.path` during its start,
before the module to run is found, and `sink.job` puts this directory on those processes' `PYTHONPATH`
(the driver JVM's environment when the sink starts it; the data source's worker environment otherwise).

The zips are dropped only when they are the packaged copy of the pyspark importable without them (a pip
install: they live inside that package's directory); a Spark distribution's zip, the only copy, stays. Then this
directory leaves `sys.path` and the next `sitecustomize` on it, if any (a user's), runs as it would have.
"""

from __future__ import annotations

import os
import sys


def packaged_zips(path: list[str]) -> list[str]:
    """The entries of `path` that are zips inside the directory of the pyspark importable without them."""
    zips = [p for p in path if p.endswith(".zip") and os.sep + "python" + os.sep + "lib" + os.sep in p]
    if not zips:
        return []
    rest = [p for p in path if p not in zips]
    for d in rest:
        init = os.path.join(d or ".", "pyspark", "__init__.py")
        if os.path.isfile(init):
            home = os.path.realpath(os.path.dirname(init))
            return [z for z in zips if os.path.realpath(z).startswith(home + os.sep)]
    return []


def connect_back_early() -> None:
    """In a Python process Spark starts as a plain worker (the stream's offset runner: `PYTHON_WORKER_FACTORY_PORT`
    in its environment), connect back to the JVM and authenticate now, before the process imports anything.

    The JVM waits a fixed 10 s for the connection (`PythonWorkerFactory.createSimpleWorker`: a `Selector.select(
    10000)`, no setting) and 10 s more for the secret (`SocketAuthHelper.authClient`); pyspark's runner connects
    only after its imports (pyspark, pyarrow, numpy: ~0.5 CPU-s), which at load 40 on two cores took longer and
    failed the query ("Python worker failed to connect back"). After the secret the JVM reads the worker's pid
    with no timeout. So the connection and the secret's exchange happen here (tens of ms after the start), and
    the runner's own connect later (`pyspark.util.local_connect_and_auth`, the same address) is given this
    socket, already authenticated: its `connect` takes over this socket's descriptor and that one call's
    `_do_server_auth` is skipped. Anything unexpected (no port, a Unix socket, a refused connection, a reply
    other than "ok") leaves the process as it was, to connect as before."""
    port, secret = (
        os.environ.get("PYTHON_WORKER_FACTORY_PORT"),
        os.environ.get("PYTHON_WORKER_FACTORY_SECRET"),
    )
    if not port or not secret or os.environ.get("PYTHON_WORKER_FACTORY_SOCK_PATH"):
        return
    import socket
    import struct

    ipv6 = os.environ.get("SPARK_PREFER_IPV6", "false").lower() == "true"
    addr = ("::1" if ipv6 else "127.0.0.1", int(port))
    try:
        early = socket.create_connection(addr, timeout=int(os.environ.get("SPARK_AUTH_SOCKET_TIMEOUT", 15)))
        data = secret.encode()
        early.sendall(struct.pack("!i", len(data)) + data)
        f = early.makefile("rb")
        n = struct.unpack("!i", f.read(4))[0]
        reply = f.read(n).decode()
        f.close()
    except (OSError, struct.error, UnicodeDecodeError):
        return
    if reply != "ok":
        early.close()
        return
    connect = socket.socket.connect

    def connect_taken_over(self, address):
        if early.fileno() >= 0 and address[:2] == addr and self.family == early.family:
            os.dup2(early.fileno(), self.fileno())
            early.close()
            socket.socket.connect = connect
            util = sys.modules.get("pyspark.util")
            if util is not None:  # skip the one authentication this connection already did
                auth = util._do_server_auth

                def authenticated(conn, secret):
                    util._do_server_auth = auth

                util._do_server_auth = authenticated
            return None
        return connect(self, address)

    socket.socket.connect = connect_taken_over


def start() -> None:
    """Drop the packaged zips, take this directory off `sys.path`, run the next `sitecustomize` if any."""
    connect_back_early()
    drop = packaged_zips(sys.path)
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path[:] = [p for p in sys.path if p not in drop and os.path.realpath(p or os.curdir) != here]
    me = sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # noqa: F401  the next one on the path (a user's), as if this one did not exist
    except ImportError as e:
        if e.name != "sitecustomize":
            raise
        # none: importlib pops the name from sys.modules once this module has run, so it must be there
        if me is not None:
            sys.modules["sitecustomize"] = me


if __name__ == "sitecustomize":
    start()
