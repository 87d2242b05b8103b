"""The CLI's errors: one line each (the traceback only with --debug)."""

from __future__ import annotations

import re


class UsageError(Exception):
    """Bad input named on the command line: a missing source, an unreachable Kafka, records that are not
    Debezium's."""


_WRAPPERS = (
    "STREAM_FAILED",
    "An exception was thrown from the Python worker",  # an executor's Python error: its own line follows
    "FOREACH_BATCH_USER_FUNCTION_ERROR",
    "An exception was raised by the Python Proxy",
)


def one_line(e: BaseException | str) -> str:
    """The first informative line of an error (Spark wraps Python errors in pages of JVM stack)."""
    text = str(e)
    found = [
        (m.group(1), m.group(2))
        for m in re.finditer(r"(?m)^\s*(?:[\w$]+\.)*(\w+(?:Error|Exception|Invalid)): (.+)$", text)
        if not any(w in m.group(2) for w in _WRAPPERS)
        and m.group(1) not in ("Py4JException", "Py4JJavaError")
    ]
    lines = [x.strip() for x in text.splitlines() if x.strip() and not x.strip().startswith(("at ", "File "))]
    if found:
        msg = f"{found[0][0]}: {found[0][1]}"
    else:
        msg = lines[0] if lines else type(e).__name__ if isinstance(e, BaseException) else "error"
    return msg if len(msg) <= 400 else msg[:397] + "..."
