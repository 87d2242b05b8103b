"""CPU per line of appending ~4.7 KB record lines to a file, by the way they reach the kernel.

The directory output appends each record's line to a `BufferedWriter` (`directory.BUFFER_BYTES`); this
measures what that costs in user and system CPU per line against other buffer sizes, `os.writev` of the lines
themselves (no copy into a buffer) and one `os.write` of the joined lines. Each way ends with the fsync an
offset commit does (the blocks delayed allocation left for writeback are allocated then, in this process).

Each run is a fresh child process (its own page cache pages, heap and file), the ways interleaved round by
round, the child's CPU read with `wait4` minus that of a child that writes nothing; the medians are printed.
The total is exact (the scheduler's runtime); its split into user and system time is sampled at each timer
tick (TICK_CPU_ACCOUNTING: 4 ms at HZ=250), so with the user part about equal between the ways compare the
totals. System time moves with the machine's load and the kernel's writeback: compare ways within one run.
A benchmark, not a test.

    .venv/bin/python bench/bench_line_write.py --lines 40000 --rounds 8 --dir /tmp
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Callable

LINE_BYTES = 4700  # a bench_pg.py record's line
# `--fresh`: each line a new object made by `%` formatting, as records are (a writer that keeps the lines until
# it writes them, `os.writev`, then holds a buffer's worth of distinct objects); else 64 objects written in turn
FRESH = b""


def buffered(size: int) -> Callable[[str, list[bytes], int], None]:
    def run(path: str, lines: list[bytes], n: int) -> None:
        with open(path, "ab", buffering=size) as f:
            w = f.write
            for i in range(n):
                w(FRESH % lines[i & 63] if FRESH else lines[i & 63])
            f.flush()
            os.fsync(f.fileno())

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
                line = FRESH % lines[i & 63] if FRESH else lines[i & 63]
                parts.append(line)
                size += len(line)
                if size >= batch:
                    put(fd, parts)
                    parts.clear()
                    size = 0
            if parts:
                put(fd, parts)
            os.fsync(fd)
        finally:
            os.close(fd)

    return run


def nothing(path: str, lines: list[bytes], n: int) -> None:
    return None


WAYS: dict[str, Callable[[str, list[bytes], int], None]] = {
    "(nothing: the baseline)": nothing,
    "BufferedWriter 64 KiB": buffered(1 << 16),
    "BufferedWriter 256 KiB": buffered(1 << 18),
    "BufferedWriter 512 KiB": buffered(1 << 19),
    "BufferedWriter 1 MiB": buffered(1 << 20),
    "BufferedWriter 2 MiB": buffered(1 << 21),
    "BufferedWriter 4 MiB": buffered(1 << 22),
    "os.writev per 1 MiB": gathered(1 << 20, join=False),
    "join + os.write per 1 MiB": gathered(1 << 20, join=True),
}


def child(way: str, path: str, n: int, fresh: bool) -> None:
    global FRESH
    FRESH = b"%b\n" if fresh else b""
    lines = [b"x" * (LINE_BYTES - (i % 7)) + (b"" if fresh else b"\n") for i in range(64)]
    WAYS[way](path, lines, n)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=40_000)
    ap.add_argument("--dir", default=None, help="where the file is written (default: the temp dir)")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--fresh", action="store_true", help="a new object per line (see FRESH)")
    ap.add_argument("--child", nargs=2, metavar=("WAY", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.lines, args.fresh)
        return 0
    cpu: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-line-write-") as d:
        path = os.path.join(d, "topic.jsonl")
        for _ in range(args.rounds):
            for way in WAYS:
                cmd = [sys.executable, __file__, "--lines", str(args.lines), "--child", way, path]
                cmd += ["--fresh"] if args.fresh else []
                pid = os.posix_spawn(sys.executable, cmd, os.environ)
                _pid, status, usage = os.wait4(pid, 0)
                if status != 0:
                    raise SystemExit(f"{way}: child failed ({status})")
                cpu[way].append((usage.ru_utime, usage.ru_stime))
                if os.path.exists(path):
                    os.unlink(path)
    base = cpu["(nothing: the baseline)"]
    base_u = statistics.median(u for u, _ in base)
    base_s = statistics.median(s for _, s in base)
    base_t = statistics.median(u + s for u, s in base)
    per = 1e6 / args.lines
    for way, runs in cpu.items():
        if WAYS[way] is nothing:
            continue
        u = statistics.median(r[0] for r in runs) - base_u
        s = statistics.median(r[1] for r in runs) - base_s
        t = [(r[0] + r[1] - base_t) * per for r in runs]
        print(
            f"{way:28s} user {u * per:5.2f}  sys {s * per:5.2f}  total {statistics.median(t):5.2f} "
            f"(min {min(t):5.2f}, max {max(t):5.2f})  CPU-µs/line, median of {len(runs)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
