"""The connect comparison masks the binlog file name wherever a record carries it: in JSON, inside Avro datums
(decoded with the registry) and inside UTF-8 `b64` bytes. Connect campaign seed 72 trial 46 reported
`.value.avro.datum.source.file: golden "binlog.000002" | candidate "binlog.000001"`: Debezium's server had
rotated its binlog, which says nothing about the records (positions are masked for the same reason).

Real Debezium recordings of tests/data/connect are compared with themselves after their binlog file was
renamed to binlog.000002 (the same length, so every Avro string stays well formed): equal with the mask, and
without it the comparison must see the difference (else the test proves nothing)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from emulator.testing import differential_connect as dc

DATA = Path(__file__).resolve().parents[1] / "data" / "connect"
OLD, NEW = b"binlog.000001", b"binlog.000002"


def _rotated(line: str) -> str:
    """One recorded line with the binlog file renamed, in JSON text and inside `b64` bytes."""
    rec = json.loads(line)
    for part in ("key", "value"):
        v = rec.get(part)
        if isinstance(v, dict) and set(v) == {"b64"}:
            raw = base64.b64decode(v["b64"])
            rec[part] = {"b64": base64.b64encode(raw.replace(OLD, NEW)).decode()}
    return json.dumps(rec).replace(OLD.decode(), NEW.decode())


def _pair(tmp: Path, case: str) -> tuple[Path, Path]:
    """golden: the recording rotated; candidate: the recording as an emulator output directory."""
    src = DATA / f"{case}.jsonl"
    lines = [ln for ln in src.read_text().splitlines() if ln.strip()]
    golden = tmp / "golden.jsonl"
    golden.write_text("".join(_rotated(ln) + "\n" for ln in lines))
    cand = tmp / "emulator"
    cand.mkdir()
    for ln in lines:
        topic = json.loads(ln)["topic"]
        with (cand / f"{topic}.jsonl").open("a") as f:
            f.write(ln + "\n")
    reg = DATA / f"{case}.registry.json"
    if reg.is_file():
        (tmp / "golden.registry.json").write_text(reg.read_text())
        (cand / "registry.json").write_text(reg.read_text())
    return golden, cand


@pytest.mark.parametrize("case", ["mariadb_avro", "mariadb_unwrap"])
def test_rotated_binlog_file_is_masked(tmp_path, case, monkeypatch):
    golden, cand = _pair(tmp_path, case)
    assert golden.read_text() != (DATA / f"{case}.jsonl").read_text()
    n, problems = dc.compare_outputs(golden, cand)
    assert n > 10 and not problems, problems[:3]
    # the same comparison without the mask sees the rotated file (inside the Avro datum for mariadb_avro)
    monkeypatch.setattr(dc, "mask_binlog_files", lambda text, charsets=(): text)
    n, problems = dc.compare_outputs(golden, cand)
    assert problems and all("file" in p for p in problems), problems[:3]
    if case == "mariadb_avro":
        assert any(".avro.datum.source.file" in p for p in problems), problems[:3]


def test_text_bytes_are_masked():
    """StringConverter's text (`file=binlog.000002`) is UTF-8 `b64` in a line."""
    text = "Struct{source=Struct{file=binlog.000002,pos=4}}"
    line = json.dumps({"value": {"b64": base64.b64encode(text.encode()).decode()}})
    masked = json.loads(dc.mask_binlog_files(line))["value"]["b64"]
    assert base64.b64decode(masked).decode() == "Struct{source=Struct{file=binlog.<file>,pos=4}}"
    assert dc.mask_binlog_files('{"file": "binlog.000123", "x": "mybinlog.000001"}') == (
        '{"file": "binlog.<file>", "x": "mybinlog.000001"}'
    )
