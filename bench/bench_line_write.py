"""CPU per line of appending ~4.7 KB record lines to a file, by the way they reach the kernel.

The directory output appends each record's line to a `BufferedWriter` (256 KiB buffer); this measures what
that costs in user and system CPU per line against other buffer sizes, `os.writev` of the lines themselves
(no copy into a buffer) and one `os.write` of the joined lines, each flushed every `--batch` bytes. A
benchmark, not a test; run it more than once on a loaded machine.

    .venv/bin/python bench/bench_line_write.py --lines 100000 --dir /tmp
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
from collections.abc import Callable

LINE_BYTES = 4700  # a bench_pg.py record's line


def _cpu() -> tuple[float, float]:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime


def buffered(size: int) -> Callable[[str, list[bytes], int], None]:
    def run(path: str, lines: list[bytes], n: int) -> None:
        with open(path, "ab", buffering=size) as f:
            w = f.write
            for i in range(n):
                w(lines[i & 63])

    return run


def gathered(batch: int, join: bool) -> Callable[[str, list[bytes], int], None]:
    def put(fd: int, parts: list[bytes]) -> None:
        if join:
            os.write(fd, b"".join(parts))
        else:
            os.writev(fd, parts)

    def run(path: str, lines: list[bytes], n: int) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            parts: list[bytes] = []
            size = 0
            for i in range(n):
                line = lines[i & 63]
                parts.append(line)
                size += len(line)
                if size >= batch:
                    put(fd, parts)
                    parts.clear()
                    size = 0
            if parts:
                put(fd, parts)
        finally:
            os.close(fd)

    return run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--dir", default=None, help="where the file is written (default: the temp dir)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    lines = [b"x" * (LINE_BYTES - (i % 7)) + b"\n" for i in range(64)]  # 64 distinct objects
    ways = {
        "BufferedWriter 64 KiB": buffered(1 << 16),
        "BufferedWriter 256 KiB": buffered(1 << 18),
        "BufferedWriter 1 MiB": buffered(1 << 20),
        "BufferedWriter 4 MiB": buffered(1 << 22),
        "os.writev per 256 KiB": gathered(1 << 18, join=False),
        "join + os.write per 256 KiB": gathered(1 << 18, join=True),
        "join + os.write per 1 MiB": gathered(1 << 20, join=True),
    }
    best: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-line-write-") as d:
        path = os.path.join(d, "topic.jsonl")
        for _ in range(args.repeat):
            for name, run in ways.items():
                u0, s0 = _cpu()
                run(path, lines, args.lines)
                u1, s1 = _cpu()
                os.unlink(path)
                us = ((u1 - u0) / args.lines * 1e6, (s1 - s0) / args.lines * 1e6)
                if name not in best or sum(us) < sum(best[name]):
                    best[name] = us
    for name, (u, s) in best.items():
        print(f"{name:30s} user {u:5.2f}  sys {s:5.2f}  total {u + s:5.2f} CPU-µs/line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
