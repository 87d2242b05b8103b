"""The connect comparison masks a StringConverter's text in its `converter.encoding`, not only in UTF-8.
Connect campaign seed 139 trial 9 (MariaDB, `value.converter.converter.encoding=UTF-16`) reported every record
as different: only the run's timestamps (`ts_ms=...` inside the text) were, in UTF-16 bytes the UTF-8 mask never
decoded.

The data: the first records of three topics of that trial, Debezium 3.6.3's and the emulator's, with the
trial's configuration. Equal once the text is decoded in the configured charset; a real difference in that text
(a character, the byte order mark, the byte order) must still be seen (else the test proves nothing)."""

from __future__ import annotations

import base64
import json
import shutil
import sys
from pathlib import Path

from emulator.testing import differential_connect as dc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from connect_compare import compare, recode, text_charsets  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "string_utf16"
PROPS = json.loads((DATA / "props.json").read_text())
GADGETS = "dbserver1.inventory.gadgets.jsonl"


def _copy(tmp: Path) -> tuple[Path, Path]:
    shutil.copy(DATA / "golden.jsonl", tmp / "golden.jsonl")
    shutil.copytree(DATA / "emulator", tmp / "emulator")
    return tmp / "golden.jsonl", tmp / "emulator"


def _rewrite_first(topic: Path, fn) -> None:
    """The first record of an emulator topic file with its value's bytes -> fn(bytes)."""
    lines = topic.read_text().splitlines()
    first = json.loads(lines[0])
    first["value"]["b64"] = base64.b64encode(fn(base64.b64decode(first["value"]["b64"]))).decode()
    topic.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")


def test_the_runs_differ_only_in_masked_fields() -> None:
    assert text_charsets(PROPS) == {"value": "UTF-16"}
    n, problems = dc.compare_outputs(DATA / "golden.jsonl", DATA / "emulator", PROPS)
    assert (n, problems) == (6, [])
    # without the configuration (the comparison before): every record differs, in its timestamps
    n, problems = dc.compare_outputs(DATA / "golden.jsonl", DATA / "emulator")
    assert n == 6 and len(problems) == 6 and all(".value.b64" in p for p in problems), problems


def test_a_changed_character_is_seen(tmp_path: Path) -> None:
    golden, cand = _copy(tmp_path)
    old, new = "txt=hello".encode("utf-16-be"), "txt=hellp".encode("utf-16-be")
    _rewrite_first(cand / GADGETS, lambda raw: raw.replace(old, new) if old in raw else b"")
    n, problems = dc.compare_outputs(golden, cand, PROPS)
    assert n == 6 and len(problems) == 1 and "gadgets #0: .value.text: golden" in problems[0], problems


def test_another_byte_order_is_seen(tmp_path: Path) -> None:
    """Java writes `FE FF` then big-endian; the same text little-endian behind `FF FE` is another output."""
    golden, cand = _copy(tmp_path)

    def little(raw: bytes) -> bytes:
        assert raw[:2] == b"\xfe\xff"
        return b"\xff\xfe" + raw[2:].decode("utf-16-be").encode("utf-16-le")

    _rewrite_first(cand / GADGETS, little)
    n, problems = dc.compare_outputs(golden, cand, PROPS)
    assert problems == [
        'dbserver1.inventory.gadgets #0: .value.charset: golden "utf-16-be" | candidate "utf-16-le"'
    ]
    # and without a mark (big-endian text, as Java decodes it): the mark is compared too
    (tmp_path / "x").mkdir()
    golden, cand = _copy(tmp_path / "x")
    _rewrite_first(cand / GADGETS, lambda raw: raw[2:])
    n, problems = dc.compare_outputs(golden, cand, PROPS)
    assert problems == ['dbserver1.inventory.gadgets #0: .value.bom: golden "feff" | candidate ""'], problems


def test_text_without_a_mark_is_masked(tmp_path: Path) -> None:
    """UTF-16LE of ASCII text is valid UTF-8 (NULs between the letters): the configured charset goes first."""
    a, b = "Struct{ts_ms=1795851516929,id=1}", "Struct{ts_ms=1795851599999,id=é}"
    for charset, codec in (("UTF-16LE", "utf-16-le"), ("UTF-16BE", "utf-16-be"), ("UTF-32", "utf-32-be")):
        assert recode(b.encode(codec), charset, str.upper) == (b"", codec, b.upper())
    assert recode(b.encode("latin-1"), "ISO-8859-1", str) == (b"", "iso8859-1", b)
    assert recode(b"\xfe\xff\xd8\x00", "UTF-16", str) is None  # a lone surrogate: not text
    props = {"key.converter": "org.apache.kafka.connect.storage.StringConverter"}
    props["key.converter.converter.encoding"] = "UTF-16LE"
    line = {"topic": "t", "key": {"b64": base64.b64encode(a.encode("utf-16-le")).decode()}, "value": None}
    other = dict(line, key={"b64": base64.b64encode(b.encode("utf-16-le")).decode()})
    other["key"] = {"b64": base64.b64encode(a.replace("16929", "99999").encode("utf-16-le")).decode()}
    g, c = tmp_path / "g.jsonl", tmp_path / "c"
    c.mkdir()
    g.write_text(json.dumps(line) + "\n")
    (c / "t.jsonl").write_text(json.dumps(other) + "\n")
    assert compare(g, c, text_charsets(props)) == (1, [])
    assert compare(g, c)[1], "unmasked, the two timestamps differ"


def test_only_the_converters_own_option_counts() -> None:
    sc = "org.apache.kafka.connect.storage.StringConverter"
    assert text_charsets({"value.converter": sc, "value.converter.encoding": "UTF-16"}) == {}
    assert text_charsets({"value.converter": sc, "value.converter.converter.encoding": "utf8"}) == {}
    assert text_charsets({"value.converter": "org.apache.kafka.connect.json.JsonConverter",
                          "value.converter.converter.encoding": "UTF-16"}) == {}  # fmt: skip
    assert text_charsets({"header.converter": sc, "header.converter.converter.encoding": "ISO-8859-1"}) == {
        "header": "ISO-8859-1"
    }


def test_a_binlog_file_in_utf16_text_is_masked() -> None:
    text = "Struct{source=Struct{file=binlog.000002,pos=4}}"
    raw = b"\xfe\xff" + text.encode("utf-16-be")
    line = json.dumps({"value": {"b64": base64.b64encode(raw).decode()}})
    assert dc.mask_binlog_files(line) == line  # UTF-8 only: not text
    masked = base64.b64decode(json.loads(dc.mask_binlog_files(line, ("UTF-16",)))["value"]["b64"])
    assert masked == b"\xfe\xff" + "Struct{source=Struct{file=binlog.<file>,pos=4}}".encode("utf-16-be")
