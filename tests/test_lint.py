"""The style gate: `ruff check` and `ruff format --check` over the code (pyproject's settings; ruff pinned there, since
another version formats differently).
Formatting drifted in 23 files while nothing checked it; now a drift fails here, naming the files."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["emulator", "sink", "tests", "bench", "scripts"]


def _ruff() -> list[str]:
    exe = Path(sys.executable).with_name("ruff")
    if exe.exists():
        return [str(exe)]
    if shutil.which("ruff"):
        return ["ruff"]
    pytest.skip("ruff not installed (pip install -e '.[test]')")


@pytest.mark.parametrize("args", [["check", "--output-format", "concise"], ["format", "--check"]])
def test_ruff(args):
    p = subprocess.run([*_ruff(), *args, *PATHS], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-1000:]


def test_modules_stay_small():
    """The style's "small modules with one job": no product module over 600 lines. Merges that were each under the
    limit pushed two files over it in session 11 while nothing checked it."""
    long = {
        str(p.relative_to(ROOT)): n
        for d in ("emulator", "sink")
        for ext in ("*.py", "*.c", "*.h")  # the optional C accelerators too (fastline, fastrow, fastkafka)
        for p in sorted((ROOT / d).rglob(ext))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert not long, f"split these modules (lines): {long}"
