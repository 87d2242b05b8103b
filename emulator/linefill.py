"""`FILL(fmt, args)`, the same bytes as `fmt % args`, `DUMPS(obj)`, the same bytes as `orjson.dumps(obj)`, and
the row decoders' functions making a text column's JSON and a DECIMAL's base64 from the row's bytes (ACCEL), by
the optional C accelerator `emulator.fastline` (emulator/fastline.c, built by setup.py where a compiler and
Python's headers exist); both None where it was not built, or when the environment sets
DBZ_EMULATOR_PURE_PYTHON=1 (a test compares both paths' output). Callers that get None use `%` and orjson
themselves (row_lines.py: the MySQL/MariaDB line path's records); with ACCEL None the row decoders slice,
decode and convert each value themselves (row_decoders.py); with ROW None no table's rows go through a C row
plan (fastrow.c, row_plan.py)."""

from __future__ import annotations

import os
from collections.abc import Callable

# fastline.c's FASTLINE_VERSION: a build of an older source (an editable install not built again since) is
# not used
VERSION = 11
try:
    from emulator import fastline
except ImportError:  # not built (no compiler at install): the pure-Python path
    fastline = None
if getattr(fastline, "VERSION", None) != VERSION:
    fastline = None

PURE = os.environ.get("DBZ_EMULATOR_PURE_PYTHON", "") in ("1", "true")
FILL: Callable[[bytes, tuple], bytes] | None = None if fastline is None or PURE else fastline.fill
DUMPS: Callable[[object], bytes] | None = None if FILL is None else fastline.dumps
# the row decoders' C functions (row_decoders.image_code's `accel`), None for the pure path: `_jt(b, start, end)`
# is orjson.dumps(b[start:end].decode('utf-8', 'replace')), `_jts(b, start, end, pstart, pend, prev)` `prev` when
# b[start:end] == b[pstart:pend], else `_jt`; `_jd(b, p, prec, scale)` values.unscaled_b64's text of the binary
# DECIMAL at b[p:] (prec <= 30), `_jds(b, p, prec, scale, ps, prev)` `prev` when the DECIMAL at ps has the same
# bytes, else `_jd`
ACCEL: dict[str, Callable] | None = (
    None
    if FILL is None
    else {
        "_jt": fastline.jtext,
        "_jts": fastline.jtext_same,
        "_jd": fastline.jdec,
        "_jds": fastline.jdec_same,
    }
)
# the whole-image line decoders (fastrow.c, row_lines._whole), None for the pure path: `plan(spec)` a table's row
# plan (row_plan.py), `line(plan, keylen, b, p, fmt, pos, row, ns[, tot, dco])` an INSERT's or DELETE's line,
# `line2(...)` an UPDATE's (None when its key changes)
ROW: dict[str, Callable] | None = (
    None if FILL is None else {"plan": fastline.plan, "line": fastline.line, "line2": fastline.line2}
)
# the pgoutput line reader (fastpg.c, pg_line_plan.py), None for the pure path: `plan(spec)` a table's plan,
# `line(plan, buf, start, fmt, lsn, tx, ns)` the generated `parse_line`'s result; `copyline(plan, data, fmt)` a
# COPY text row's snapshot line (fastpg_copy.c, snapshot_lines.py); `msg(rels, conn, data)` a streamed CopyData row
# change written whole where the stream's handlers said it may be (fastpg_msg.c, fast_rows.py)
PG: dict[str, Callable] | None = (
    None
    if FILL is None
    else {
        "plan": fastline.pgplan,
        "line": fastline.pgline,
        "copyline": fastline.pgcopyline,
        "msg": fastline.pgmsg,
    }
)
# the binlog stream's packet framer (fastframe.c, binlog.BinlogReader.frames), None for the pure path:
# `frame(read, raw, rest)`, BinlogReader.read's result for a whole packet of a type set in `raw`, else rest's
FRAME: Callable | None = None if FILL is None else fastline.frame
