"""Compare a Connect golden (real Debezium through SMTs and converters) with an emulator output directory.

A port of the golden recorder's `compare_connect.py` masking (stdlib only): per topic and in order, every
record's key, value, headers (names, order, values) and partition must be equal after masking what
differs between two runs of real Debezium on fresh servers — fields named / ending in ts_ms, ts_us,
ts_ns; log positions (`lsn`, `*lsn`, PG `sequence` LSNs, MariaDB `pos` beside `file`); the
`__debezium.context.runId` header (numbered per record set). JSON numbers with a fraction or exponent are
compared by their text (the line holds the converter's bytes). `{"b64"}` bytes that are UTF-8 text are
compared as that text; a StringConverter's text in another `converter.encoding` as that text, its charset and its
byte order mark (`text_charsets`). Heartbeat topics are dropped.
"""

from __future__ import annotations

import base64
import codecs
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


def text_charsets(props: dict) -> dict[str, str]:
    """{"key" | "value" | "header": charset} for each StringConverter a configuration gives a `converter.encoding`
    other than UTF-8 (Kafka's StringConverterConfig reads no other name), as far as Python knows the charset."""
    out = {}
    for part in ("key", "value", "header"):
        charset = props.get(f"{part}.converter.converter.encoding")
        if not charset or not props.get(f"{part}.converter", "").endswith(".StringConverter"):
            continue
        try:
            if codecs.lookup(charset).name != "utf-8":
                out[part] = charset
        except LookupError:
            pass
    return out


# Java decodes `UTF-16` / `UTF-32` by their byte order mark, big-endian without one (Python: native order)
_BOMS = {
    "utf-16": ((b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le")),
    "utf-32": ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le")),
}


def recode(raw: bytes, charset: str, fn) -> tuple[bytes, str, str] | None:
    """(byte order mark, codec, fn(text)) for bytes that are text in `charset`, or None. Only where the text
    encodes back to the same bytes, so the pair still says which bytes the converter wrote (seed 139 trial 9:
    a UTF-16 `ts_ms=` the UTF-8 mask never saw)."""
    name = codecs.lookup(charset).name
    bom, codec = b"", name
    if name in _BOMS:
        codec = name + "-be"
        for mark, c in _BOMS[name]:
            if raw.startswith(mark):
                bom, codec = mark, c
                break
    body = raw[len(bom) :]
    try:
        text = body.decode(codec)
    except UnicodeDecodeError:
        return None
    if text.encode(codec) != body:
        return None
    return bom, codec, fn(text)


def _expand(v, charset: str | None = None):
    if isinstance(v, dict) and set(v) == {"b64"}:
        raw = base64.b64decode(v["b64"])
        if charset:
            # first: UTF-16 text without a mark can be valid UTF-8 (ASCII with NULs between)
            got = recode(raw, charset, _mask_text)
            if got is not None:
                return {"text": got[2], "charset": got[1], "bom": got[0].hex()}
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
    def __init__(self, charsets: dict[str, str]) -> None:
        self.run_ids: dict[str, str] = {}
        self.charsets = charsets

    def headers(self, hs):
        out = []
        for name, val in hs or []:
            val = _expand(val, self.charsets.get("header"))
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


def load(path: Path, charsets: dict[str, str] | None = None) -> dict[str, list[dict]]:
    """A golden `.jsonl` (lines with `topic`) or a candidate directory of `<topic>.jsonl` files ->
    {topic: [masked records]}; `charsets`: text_charsets of the run's configuration."""
    per: dict[str, list[dict]] = {}
    charsets = charsets or {}
    m = _Masker(charsets)

    def add(topic: str, rec: dict) -> None:
        if topic.startswith(HEARTBEAT_PREFIX):
            return
        per.setdefault(topic, []).append(
            {
                "key": mask(_expand(rec.get("key"), charsets.get("key"))),
                "value": mask(_expand(rec.get("value"), charsets.get("value"))),
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


def compare(golden: Path, candidate: Path, charsets: dict[str, str] | None = None) -> tuple[int, list[str]]:
    """-> (records compared, mismatch descriptions); each differing record or missing/extra one counts."""
    g, c = load(golden, charsets), load(candidate, charsets)
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
