"""Java `SimpleDateFormat` patterns as TimestampRouter and TimestampConverter users write them (UTC): the
letters `yyyy yy MM dd HH mm ss SSS` and quoted text; any other letter raises ValueError naming it."""

from __future__ import annotations

import datetime as dt

# SimpleDateFormat letters TimestampRouter users put in timestamp.format
_SDF = [("yyyy", "%Y"), ("yy", "%y"), ("MM", "%m"), ("dd", "%d"), ("HH", "%H"), ("mm", "%M"), ("ss", "%S")]


def simple_date_format(fmt: str, ts_ms: int) -> str:
    t = dt.datetime.fromtimestamp(ts_ms / 1000, tz=dt.UTC)
    out, i = [], 0
    while i < len(fmt):
        if fmt[i] == "'":
            j = fmt.find("'", i + 1)
            j = len(fmt) if j < 0 else j
            out.append(fmt[i + 1 : j] if j > i + 1 else "'")
            i = j + 1
            continue
        for pat, code in _SDF:
            if fmt.startswith(pat, i) and (i + len(pat) >= len(fmt) or fmt[i + len(pat)] != pat[0]):
                out.append(t.strftime(code))
                i += len(pat)
                break
        else:
            if fmt.startswith("SSS", i):
                out.append(f"{ts_ms % 1000:03d}")
                i += 3
            elif fmt[i].isalpha():
                raise ValueError(fmt[i])
            else:
                out.append(fmt[i])
                i += 1
    return "".join(out)
