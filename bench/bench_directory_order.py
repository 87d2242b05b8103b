"""What writing the directory output in emission order would cost (issue notes, docs/directory-output.md).

The directory output buffers each topic file on its own (256 KiB), so a reader can see later lines of one
topic before earlier lines of another. Writing in emission order means one write per run of same-topic lines:
this prototype (`Ordered`, not product code) does that, and the script prints CPU-µs per record for both
writers over three record patterns, and their ratio. Records are built once (no connector): the figures are
the output's own cost.

    .venv/bin/python bench/bench_directory_order.py [--records 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

from emulator.outputs.directory import BUFFER_BYTES, DirectoryOutput
from emulator.records import Record


class Ordered(DirectoryOutput):
    """Lines kept as runs of one topic, each run written with one os.write, in emission order."""

    def __init__(self, directory: str) -> None:
        super().__init__(directory)
        self.runs: list[tuple[object, bytearray]] = []
        self.size = 0

    def write(self, record: Record) -> None:
        last = self._last
        run = self.runs[-1] if self.runs and last is not None and last[0] == record.topic else None
        line = record.line()
        if run is None:
            f = self._file(record.topic)
            self._last = (record.topic, f)
            run = (f, bytearray())
            self.runs.append(run)
        run[1].extend(line)
        self.size += len(line)
        if self.size >= BUFFER_BYTES:
            self.flush()

    def flush(self) -> None:
        for f, buf in self.runs:
            os.write(f.fileno(), buf)
            self.unsynced.add(f)
        self.runs.clear()
        self.size = 0


def records(n: int, pattern: str) -> list[Record]:
    pad = b"x" * 700  # a ~0.8 KB change record
    t = Record("p.public.t", b'{"id":1}', b'{"before":null,"after":{"id":1,"v":"' + pad + b'"},"op":"c"}')
    u = Record("p.public.u", b'{"id":1}', b'{"before":null,"after":{"id":1,"v":"' + pad + b'"},"op":"c"}')
    begin = Record("p.transaction", b'{"id":"1"}', b'{"status":"BEGIN","id":"1","event_count":null}')
    end = Record("p.transaction", b'{"id":"1"}', b'{"status":"END","id":"1","event_count":1}')
    if pattern == "one_table":
        return [t] * n
    if pattern == "two_tables_alternating":
        return [t if i % 2 else u for i in range(n)]
    return [r for _ in range(n) for r in (begin, t, end)]  # single-row transactions with metadata


def cpu_per_record(cls: type[DirectoryOutput], recs: list[Record]) -> float:
    d = tempfile.mkdtemp(prefix="bench-dir-order-")
    try:
        out = cls(d)
        t = time.process_time()
        for r in recs:
            out.write(r)
        out.flush()
        cpu = time.process_time() - t
        out.close()
    finally:
        shutil.rmtree(d)
    return cpu / len(recs) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for pattern in ("one_table", "two_tables_alternating", "tx_single_row"):
        recs = records(args.records, pattern)
        base, ordered = [], []
        for _ in range(args.repeat):  # interleaved, best of each
            base.append(cpu_per_record(DirectoryOutput, recs))
            ordered.append(cpu_per_record(Ordered, recs))
        b, o = min(base), min(ordered)
        print(
            f"{pattern:24s} per-file buffers {b:5.2f} CPU-µs/record   emission order {o:5.2f}   ({o / b:.2f}x)"
        )


if __name__ == "__main__":
    main()
