"""Comparison of our records with a golden Debezium recording, masking only what varies between runs.

Masked: timestamps (ts_ms/ts_us/ts_ns), the runId header value, watermark row ids (numbered by first
appearance so open/close pairing still counts) and their data, PG LSNs (source.lsn, the numbers in
source.sequence, the LSN half of transaction ids), MariaDB/MySQL binlog byte offsets (source.pos; a schema
change's numbered by first appearance: a blocking snapshot sends the initial snapshot's events again), the Java
identity hash in logical-message collection names, heartbeat records, notification timestamps,
random notification ids and the order of notification data keys (Debezium's own varies by run); with `mask_positions` also
transaction ids (PG txId, MariaDB GTIDs) and the binlog gtid/file/row of source blocks. Everything else —
schemas with key order, payloads, ops, markers, tombstones, header names and order, per-topic order —
must be equal.
"""

from __future__ import annotations

import copy
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

TS = ("ts_ms", "ts_us", "ts_ns")
WM_TYPES = ("snapshot-window-open", "snapshot-window-close")
WM_ID = re.compile(r"^([0-9a-fA-F-]{36})-(open|close)$")
PG_TXID = re.compile(r"^(\d+):(\d+)$")
GTID = re.compile(r"^\d+-\d+-\d+$")  # MariaDB domain-server-seq
MSG_HASH = re.compile(r"(LogicalDecodingMessageId)@[0-9a-fA-F]+$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
NOTIFICATION = "io.debezium.connector.common.Notification"
TX_KEY = "io.debezium.connector.common.TransactionMetadataKey"


def load_golden(path: Path) -> dict[str, list[dict]]:
    by_topic: dict[str, list[dict]] = defaultdict(list)
    for line in path.read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            by_topic[rec["topic"]].append(rec)
    return by_topic


def load_dir(directory: Path) -> dict[str, list[dict]]:
    by_topic: dict[str, list[dict]] = {}
    for f in sorted(directory.glob("*.jsonl")):
        topic = f.name[: -len(".jsonl")]
        by_topic[topic] = [dict(json.loads(x), topic=topic) for x in f.read_text().splitlines() if x.strip()]
    return by_topic


def is_transaction_record(rec: dict) -> bool:
    """A transaction metadata record (BEGIN/END), known by its key schema: topic.transaction and topic.delimiter
    may give its topic any name."""
    key = rec.get("key")
    return (
        isinstance(key, dict) and isinstance(key.get("schema"), dict) and key["schema"].get("name") == TX_KEY
    )


class Masker:
    def __init__(self, mask_positions: bool) -> None:
        self.mask_positions = mask_positions
        self.run_ids: dict[str, str] = {}
        self.wm_ids: dict[str, str] = {}
        self.positions: dict[str, str] = {}

    def _num(self, table: dict, v: str, prefix: str) -> str:
        return table.setdefault(v, f"<{prefix}#{len(table) + 1}>")

    def _wm(self, v: Any) -> Any:
        m = WM_ID.match(v) if isinstance(v, str) else None
        return f"{self._num(self.wm_ids, m.group(1).lower(), 'wm')}-{m.group(2)}" if m else v

    def _txid(self, v: Any) -> Any:
        m = PG_TXID.match(v) if isinstance(v, str) else None
        if not m:
            if self.mask_positions and isinstance(v, str) and GTID.match(v):
                return "<gtid>"
            return v
        return ("<txId>" if self.mask_positions else m.group(1)) + ":<lsn>"

    @staticmethod
    def _ts(d: Any) -> None:
        if isinstance(d, dict):
            for k in TS:
                if d.get(k) is not None:
                    d[k] = "<ts>"

    def record(self, rec: dict) -> dict:
        rec = copy.deepcopy(rec)
        topic = rec["topic"]
        key, value = rec.get("key"), rec.get("value")
        is_tx = topic.endswith(".transaction") or is_transaction_record(rec)
        if isinstance(key, dict) and isinstance(key.get("payload"), dict):
            kp = key["payload"]
            if is_tx:
                kp["id"] = self._txid(kp.get("id"))
            elif "id" in kp:
                kp["id"] = self._wm(kp["id"])
        if isinstance(value, dict) and (value.get("schema") or {}).get("name") == NOTIFICATION:
            # notifications: the send time, and the random ids of the initial snapshot's (an incremental
            # snapshot's carry the signal's id, compared as is)
            p = value["payload"]
            p["timestamp"] = "<timestamp>"
            # keys sharing a HashMap bucket come out in Map.of's order, which a JVM salts per run
            if isinstance(p.get("additional_data"), dict):
                p["additional_data"] = dict(sorted(p["additional_data"].items()))
            for d in (p, key["payload"]):
                if UUID.match(str(d.get("id"))):
                    d["id"] = "<uuid>"
        elif isinstance(value, dict) and isinstance(value.get("payload"), dict):
            p = value["payload"]
            self._ts(p)
            src = p.get("source")
            if isinstance(src, dict):
                self._ts(src)
                if src.get("lsn") is not None:
                    src["lsn"] = "<lsn>"
                if isinstance(src.get("sequence"), str):
                    src["sequence"] = re.sub(r'"\d+"', '"<lsn>"', src["sequence"])
                if self.mask_positions and src.get("txId") is not None:
                    src["txId"] = "<txId>"
                if "file" in src and src.get("pos") is not None:  # MariaDB/MySQL: binlog byte offsets
                    if "ddl" in p:
                        # a schema change's position numbered by first appearance, so that one event sent again
                        # (a blocking snapshot's, with the initial snapshot's position) is told from a new one
                        src["pos"] = self._num(self.positions, f"{src.get('file')}:{src['pos']}", "pos")
                    else:
                        src["pos"] = "<pos>"
                if self.mask_positions and "file" in src:
                    for k in ("gtid", "file", "row"):
                        if src.get(k) is not None:
                            src[k] = f"<{k}>"
            if isinstance(p.get("transaction"), dict):
                p["transaction"]["id"] = self._txid(p["transaction"].get("id"))
            if is_tx and "status" in p:
                p["id"] = self._txid(p.get("id"))
                dcs = p.get("data_collections")
                if isinstance(dcs, list):
                    for dc in dcs:
                        dc["data_collection"] = MSG_HASH.sub(r"\1@<hash>", dc["data_collection"])
                    p["data_collections"] = sorted(dcs, key=lambda d: json.dumps(d, sort_keys=True))
            for side in ("before", "after"):
                row = p.get(side)
                if isinstance(row, dict) and row.get("type") in WM_TYPES:
                    row["id"] = self._wm(row.get("id"))
                    row["data"] = "<watermark-data>"
        headers = rec.get("headers")
        if isinstance(headers, dict):
            headers = [[k, v] for k, v in headers.items()]
        out_headers = []
        for name, val in headers or []:
            if name == "__debezium.context.runId":
                val = copy.deepcopy(val)
                if isinstance(val, dict) and "payload" in val:
                    val["payload"] = self._num(self.run_ids, val["payload"], "runId")
                else:
                    val = self._num(self.run_ids, val, "runId")
            elif name in ("__debezium.oldkey", "__debezium.newkey") and isinstance(val, dict):
                payload = val.get("payload")
                if isinstance(payload, dict) and "id" in payload:
                    payload["id"] = self._wm(payload["id"])
            out_headers.append([name, val])
        return {"key": key, "value": value, "headers": out_headers}


def compare(
    golden: dict[str, list[dict]],
    candidate: dict[str, list[dict]],
    mask_positions: bool = True,
    max_report: int = 10,
) -> tuple[int, list[str]]:
    """-> (records compared, list of mismatch descriptions). Order within a topic matters."""
    mg, mc = Masker(mask_positions), Masker(mask_positions)
    problems: list[str] = []
    compared = 0
    topics = sorted(set(golden) | set(candidate))
    for topic in topics:
        if topic.startswith("__debezium-heartbeat"):
            continue
        g = [mg.record(r) for r in golden.get(topic, [])]
        c = [mc.record(r) for r in candidate.get(topic, [])]
        compared += len(g)
        for i in range(max(len(g), len(c))):
            if i >= len(g):
                problems.append(f"{topic}[{i}]: extra record {json.dumps(c[i])[:300]}")
                continue
            if i >= len(c):
                problems.append(f"{topic}[{i}]: missing record {json.dumps(g[i])[:300]}")
                continue
            if json.dumps(g[i]) != json.dumps(c[i]):
                problems.append(f"{topic}[{i}]: {describe(g[i], c[i])}")
    return compared, problems


def describe(g: Any, c: Any, path: str = "") -> str:
    """The first differing path, key order included."""
    if isinstance(g, dict) and isinstance(c, dict):
        if list(g) != list(c):
            return f"{path or '/'}: keys {list(g)} != {list(c)}"
        for k in g:
            if json.dumps(g[k]) != json.dumps(c[k]):
                return describe(g[k], c[k], f"{path}/{k}")
    if isinstance(g, list) and isinstance(c, list) and len(g) == len(c):
        for i, (a, b) in enumerate(zip(g, c)):
            if json.dumps(a) != json.dumps(b):
                return describe(a, b, f"{path}[{i}]")
    return f"{path or '/'}: golden {json.dumps(g)[:200]} != ours {json.dumps(c)[:200]}"


def sections(path: Path) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    cur = None
    for line in path.read_text().splitlines(keepends=True):
        m = re.match(r"--\s*@section\s+(\S+)", line)
        if m:
            cur = m.group(1)
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return {k: "".join(v) for k, v in out.items()}
