"""The directory output after a crash: a line cut in the middle by kill -9 must not swallow the next record."""

from __future__ import annotations

import json

from emulator.outputs.directory import DirectoryOutput
from emulator.records import Record


def test_partial_last_line_is_dropped_on_reopen(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"key":1,"value":1}\n{"key":2,"val')  # the second write was cut by a crash
    out = DirectoryOutput(tmp_path)
    out.write(Record("t", b"3", b"3"))
    out.close()
    lines = path.read_bytes().splitlines()
    assert [json.loads(x) for x in lines] == [{"key": 1, "value": 1}, {"key": 3, "value": 3}]


def test_whole_lines_are_kept(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"key":1,"value":1}\n')
    out = DirectoryOutput(tmp_path)
    out.write(Record("t", b"2", None))
    out.close()
    assert path.read_bytes() == b'{"key":1,"value":1}\n{"key":2,"value":null}\n'


def test_fragment_without_any_newline_is_removed(tmp_path):
    (tmp_path / "t.jsonl").write_bytes(b'{"key":1,"va')
    out = DirectoryOutput(tmp_path)
    out.write(Record("t", b"5", b"5"))
    out.close()
    assert (tmp_path / "t.jsonl").read_bytes() == b'{"key":5,"value":5}\n'
