"""`FILL(fmt, args)`, the same bytes as `fmt % args`, by the optional C accelerator `emulator.fastline`
(emulator/fastline.c, built by setup.py where a compiler and Python's headers exist); None where it was not
built, or when the environment sets DBZ_EMULATOR_PURE_PYTHON=1 (a test compares both paths' output). Callers
that get None format with `%` themselves (row_lines.py: the MySQL/MariaDB line path's records)."""

from __future__ import annotations

import os
from collections.abc import Callable

try:
    from emulator import fastline
except ImportError:  # not built (no compiler at install): the pure-Python path
    fastline = None

PURE = os.environ.get("DBZ_EMULATOR_PURE_PYTHON", "") in ("1", "true")
FILL: Callable[[bytes, tuple], bytes] | None = None if fastline is None or PURE else fastline.fill
