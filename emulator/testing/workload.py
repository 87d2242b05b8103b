"""The differential harness's workload format (emulator.testing.differential reads and runs it).

A *workload* is a SQL file in phases, split on `-- @section NAME` lines:

  pre                 run before the capture starts (the initial snapshot reads it)
  stream              run once the snapshot is done (or, with snapshot.mode no_data/never, once the
                      capture streams)
  incremental_locker  optional, run beside `incremental` (e.g. a table lock that makes the overlap of
                      an incremental snapshot with concurrent changes deterministic)
  incremental         optional signals (rows into the signal table); the run then waits for the first
                      incremental-snapshot read

Lines `-- @set KEY=VALUE` before the first section are connector properties over the backend's
defaults. Inside a section, `-- @scenario NAME` starts a block that belongs to one scenario (statements
before the first marker are shared); the minimizer keeps or drops whole scenarios, so a generator
batches independent scenarios into one recording and a mismatch is narrowed down to the scenario that
causes it.

`-- @quiet` lines cut the stream section into steps (`stream_steps`). Standard library only: the oracle venv
imports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

SECTION = re.compile(r"^--\s*@section\s+(\S+)")
SCENARIO = re.compile(r"^--\s*@scenario\s+(\S+)")
SET = re.compile(r"^--\s*@set\s+([^=\s]+)=(.*)$")


@dataclass
class Workload:
    text: str
    sections: dict[str, str] = field(default_factory=dict)
    props: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> Workload:
        sections: dict[str, list[str]] = {}
        props: dict[str, str] = {}
        cur = None
        for line in text.splitlines(keepends=True):
            m = SECTION.match(line)
            if m:
                cur = m.group(1)
                sections[cur] = []
                continue
            if cur is None:
                s = SET.match(line.strip())
                if s:
                    props[s.group(1)] = s.group(2).strip()
                continue
            sections[cur].append(line)
        return cls(text, {k: "".join(v) for k, v in sections.items()}, props)

    @classmethod
    def load(cls, path: Path) -> Workload:
        return cls.parse(Path(path).read_text())

    def scenarios(self) -> list[str]:
        seen: dict[str, None] = {}
        for line in self.text.splitlines():
            m = SCENARIO.match(line)
            if m:
                seen.setdefault(m.group(1))
        return list(seen)

    def stream_units(self) -> list[str]:
        """The stream section's statements (a statement ends at a line ending with `;`), in order;
        directive lines (`-- @...`) are not units."""
        units, cur = [], []
        for line in self.sections.get("stream", "").splitlines(keepends=True):
            if line.lstrip().startswith("-- @"):
                continue
            cur.append(line)
            if line.rstrip().endswith(";"):
                units.append("".join(cur))
                cur = []
        if "".join(cur).strip():
            units.append("".join(cur))
        return units

    def with_stream(self, keep: list[str]) -> Workload:
        """The workload with only the stream statements in `keep` (a sub-list of stream_units(), same
        order); directive lines stay where they were."""
        out, section, unit, pending = [], None, [], list(keep)
        for line in self.text.splitlines(keepends=True):
            m = SECTION.match(line)
            if m:
                section = m.group(1)
                out.append(line)
                continue
            if section != "stream" or line.lstrip().startswith("-- @"):
                out.append(line)
                continue
            unit.append(line)
            if line.rstrip().endswith(";"):
                text = "".join(unit)
                unit = []
                if pending and pending[0] == text:
                    out.append(pending.pop(0))
        if unit and pending and pending[0] == "".join(unit):
            out.append(pending.pop(0))
        return Workload.parse("".join(out))

    def only(self, keep: set[str]) -> Workload:
        """The workload with only the scenarios in `keep` (shared statements stay)."""
        out, cur = [], None
        for line in self.text.splitlines(keepends=True):
            if SECTION.match(line):
                cur = None
                out.append(line)
                continue
            m = SCENARIO.match(line)
            if m:
                cur = m.group(1)
            if cur is None or cur in keep:
                out.append(line)
        return Workload.parse("".join(out))


QUIET = re.compile(r"^--\s*@quiet\s*$", re.M)


def stream_steps(stream: str) -> list[str]:
    """The stream section cut at `-- @quiet` lines: the recorder waits until the capture is quiet
    between steps, so that catalog reads made when a change is processed (Debezium reads NOT NULL,
    defaults and keys at its Relation message) do not see DDL of a later step."""
    return [p for p in QUIET.split(stream) if p.strip()] or [""]
