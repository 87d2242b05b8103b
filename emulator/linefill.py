"""`FILL(fmt, args)`, the same bytes as `fmt % args`, `DUMPS(obj)`, the same bytes as `orjson.dumps(obj)`, and
`JTEXT(b, start, end)`, the same as `orjson.dumps(b[start:end].decode('utf-8', 'replace'))`, by
the optional C accelerator `emulator.fastline` (emulator/fastline.c, built by setup.py where a compiler and
Python's headers exist); both None where it was not built, or when the environment sets
DBZ_EMULATOR_PURE_PYTHON=1 (a test compares both paths' output). Callers that get None use `%` and orjson
themselves (row_lines.py: the MySQL/MariaDB line path's records); with JTEXT None the row decoders slice,
decode and dump a UTF-8 text column's value (row_decoders.py)."""

from __future__ import annotations

import os
from collections.abc import Callable

# fastline.c's FASTLINE_VERSION: a build of an older source (an editable install not built again since) is
# not used
VERSION = 2
try:
    from emulator import fastline
except ImportError:  # not built (no compiler at install): the pure-Python path
    fastline = None
if getattr(fastline, "VERSION", None) != VERSION:
    fastline = None

PURE = os.environ.get("DBZ_EMULATOR_PURE_PYTHON", "") in ("1", "true")
FILL: Callable[[bytes, tuple], bytes] | None = None if fastline is None or PURE else fastline.fill
DUMPS: Callable[[object], bytes] | None = None if FILL is None else fastline.dumps
# JTEXT_SAME(b, start, end, pstart, pend, prev): `prev` when b[start:end] == b[pstart:pend], else JTEXT(...)
JTEXT: Callable[[bytes, int, int], bytes] | None = None if FILL is None else fastline.jtext
JTEXT_SAME: Callable[..., bytes] | None = None if FILL is None else fastline.jtext_same
