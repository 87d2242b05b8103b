"""Compare a Connect golden (real Debezium through SMTs and converters) with an emulator output directory.

A port of the golden recorder's `compare_connect.py` masking (stdlib only): per topic and in order, every
record's key, value, headers (names, order, values) and partition must be equal after masking what
differs between two runs of real Debezium on fresh servers — fields named / ending in ts_ms, ts_us,
ts_ns; log positions (`lsn`, `*lsn`, PG `sequence` LSNs, MariaDB `pos` beside `file`); the
`__debezium.context.runId` header (numbered per record set). JSON numbers with a fraction or exponent are
compared by their text (the line holds the converter's bytes). `{"b64"}` bytes that are UTF-8 text are
compared as that text. Heartbeat topics are dropped.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

TS_RE = re.compile(r"(^|_|\.|^iodebezium)ts_?(ms|us|ns)$")  # "." : Flatten$Value with delimiter "."
LSN_RE = re.compile(r"(^|_|\.|^iodebezium)lsn$")
TXID_RE = re.compile(r"^\d+:\d+$")
SEQ_KEYS = ("sequence", "iodebeziumsequence")
HEARTBEAT_PREFIX = "__debezium-heartbeat"


def _num(s: str) -> dict:
    return {"$num": s}


def _lines(path: Path):
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line, parse_float=_num)


# StringConverter text (`Struct{...}`): the same run-dependent parts, and Java's identity hash of a byte[]
# (`[B@1b6d3586`: differs between two runs of Debezium)
_TEXT_MASKS = (
    (re.compile(r"(\w*(?:ts_ms|ts_us|ts_ns|lsn|pos))=-?\d+"), r"\1=<x>"),  # also meta_source_ts_ms=
    (re.compile(r'"\d{5,}"'), '"<lsn>"'),
    (re.compile(r"\[B@[0-9a-f]+"), "[B@<identity>"),
    (re.compile(r"\b(\d+):\d{5,}\b"), r"\1:<lsn>"),  # a PostgreSQL transaction id, txId:LSN
)


def _mask_text(text: str) -> str:
    for rx, repl in _TEXT_MASKS:
        text = rx.sub(repl, text)
    return text


def _expand(v):
    if isinstance(v, dict) and set(v) == {"b64"}:
        raw = base64.b64decode(v["b64"])
        try:
            return {"text": _mask_text(raw.decode("utf-8"))}
        except UnicodeDecodeError:
            return v
    return v


def mask(x):
    if isinstance(x, list):
        return [mask(e) for e in x]
    if not isinstance(x, dict):
        return x
    out = {}
    for k, v in x.items():
        if v is not None and isinstance(k, str):
            if TS_RE.search(k):
                out[k] = "<ts>"
                continue
            # (flattened names too: `source.pos` beside `source.file`, `source_sequence`)
            if LSN_RE.search(k) or k == "iodebeziumpos" or (k.endswith("pos") and k[:-3] + "file" in x):
                out[k] = "<pos>"
                continue
            if k in ("id", "iodebeziumtxid") and isinstance(v, str) and TXID_RE.match(v):
                out[k] = v.split(":")[0] + ":<lsn>"  # PostgreSQL transaction ids are txId:LSN
                continue
            if (k in SEQ_KEYS or k.endswith((".sequence", "_sequence"))) and isinstance(v, str):
                out[k] = re.sub(r'"\d+"', '"<lsn>"', v)
                continue
        out[k] = mask(v)
    return out


class _Masker:
    def __init__(self) -> None:
        self.run_ids: dict[str, str] = {}

    def headers(self, hs):
        out = []
        for name, val in hs or []:
            val = _expand(val)
            if name == "__debezium.context.runId" and val is not None:
                val = self.run_ids.setdefault(
                    json.dumps(val, sort_keys=True), f"<runId#{len(self.run_ids) + 1}>"
                )
            elif TS_RE.search(name) and val is not None:
                val = "<ts>"
            else:
                val = mask(val)
            out.append([name, val])
        return out


def load(path: Path) -> dict[str, list[dict]]:
    """A golden `.jsonl` (lines with `topic`) or a candidate directory of `<topic>.jsonl` files ->
    {topic: [masked records]}."""
    per: dict[str, list[dict]] = {}
    m = _Masker()

    def add(topic: str, rec: dict) -> None:
        if topic.startswith(HEARTBEAT_PREFIX):
            return
        per.setdefault(topic, []).append(
            {
                "key": mask(_expand(rec.get("key"))),
                "value": mask(_expand(rec.get("value"))),
                "headers": m.headers(rec.get("headers")),
                "partition": rec.get("partition"),
            }
        )

    if path.is_dir():
        for f in sorted(path.glob("*.jsonl")):
            for rec in _lines(f):
                add(f.name[: -len(".jsonl")], rec)
    else:
        for rec in _lines(path):
            add(rec["topic"], rec)
    return per


def _first_diff(a, b, path: str = "") -> str:
    if type(a) is not type(b):
        return f"{path or '.'}: golden {json.dumps(a)[:120]} | candidate {json.dumps(b)[:120]}"
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if a.get(k, "<absent>") != b.get(k, "<absent>"):
                if k in a and k in b:
                    return _first_diff(a[k], b[k], f"{path}.{k}")
                return (
                    f"{path}.{k}: golden {json.dumps(a.get(k, '<absent>'))[:120]} | candidate "
                    f"{json.dumps(b.get(k, '<absent>'))[:120]}"
                )
        if list(a) != list(b):
            return f"{path}: key order golden {list(a)} | candidate {list(b)}"
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: golden {len(a)} items | candidate {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_diff(x, y, f"{path}[{i}]")
    return f"{path or '.'}: golden {json.dumps(a)[:120]} | candidate {json.dumps(b)[:120]}"


def compare(golden: Path, candidate: Path) -> tuple[int, list[str]]:
    """-> (records compared, mismatch descriptions); each differing record or missing/extra one counts."""
    g, c = load(golden), load(candidate)
    problems: list[str] = []
    n = 0
    for topic in sorted(set(g) | set(c)):
        gs, cs = g.get(topic, []), c.get(topic, [])
        for i in range(max(len(gs), len(cs))):
            n += 1
            if i >= len(cs):
                problems.append(f"{topic} #{i}: missing in the candidate: {json.dumps(gs[i])[:200]}")
            elif i >= len(gs):
                problems.append(f"{topic} #{i}: extra in the candidate: {json.dumps(cs[i])[:200]}")
            elif gs[i] != cs[i] or json.dumps(gs[i]) != json.dumps(cs[i]):
                problems.append(f"{topic} #{i}: {_first_diff(gs[i], cs[i])}")
    return n, problems
