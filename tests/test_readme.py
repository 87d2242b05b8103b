"""README.md runs as written.

Every fenced block is run, in order, in a copy of the repository against a throwaway PostgreSQL and MariaDB
whose connection is exported the way the README says (libpq's `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`,
`PGDATABASE`; `MYSQL_HOST`, `MYSQL_TCP_PORT`, `MYSQL_USER`, `MYSQL_PWD`, `MYSQL_DATABASE`):

* `sh`/`bash` blocks with bash (`set -euo pipefail`), `python` blocks with python, and python blocks that
  define `test_...` functions under pytest (the package's plugin provides the fixtures);
* a block preceded by a `<!-- fragment -->` line, or whose info string says `fragment` (```` ```python
  fragment ````), is not meant to run alone and is skipped;
* a comment line showing a record (`# dbserver1.public.orders READ key=...`) or an exit code
  (`# exit code 2`) in a shell block is output that block must print;
* other languages (properties, json, yaml, sql, ...) must be marked as fragments: nothing that looks runnable
  goes untested. Unlabelled blocks and `text` are plain text.

It also checks that the README points at nothing outside the repository: every path it names under the
repository's top-level directories exists, and no `../` path or internal vocabulary appears.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
RUN = {"sh": "sh", "bash": "sh", "shell": "sh", "python": "python", "py": "python"}
TEXT = {"", "text"}
TOP_DIRS = ("emulator", "sink", "tests", "bench", "docker", "examples", "scripts", "docs", ".ci")


@dataclass
class Block:
    line: int
    lang: str
    fragment: bool
    code: str

    @property
    def id(self) -> str:
        return f"L{self.line}-{self.lang or 'text'}"


def blocks(text: str) -> list[Block]:
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*(.*)$", lines[i])
        if not m:
            i += 1
            continue
        lang, info = m.group(1).lower(), m.group(2)
        prev = next((ln.strip() for ln in reversed(lines[:i]) if ln.strip()), "")
        fragment = "fragment" in info.split() or prev == "<!-- fragment -->"
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        out.append(Block(i + 1, lang, fragment, "\n".join(lines[i + 1 : j]) + "\n"))
        i = j + 1
    return out


BLOCKS = blocks(README.read_text())
RUNNABLE = [b for b in BLOCKS if not b.fragment and RUN.get(b.lang)]


def test_every_block_is_run_or_marked():
    unmarked = [b.id for b in BLOCKS if not b.fragment and b.lang not in RUN and b.lang not in TEXT]
    assert not unmarked, f"blocks neither runnable nor marked <!-- fragment -->: {unmarked}"
    assert len(RUNNABLE) >= 8


def test_nothing_outside_the_repository():
    text = README.read_text()
    assert not re.search(r"(?<!\.)\.\./", text), "a ../ path"
    for word in ("golden", "/work/", "the research", "digest checked", "recording harness", "these machines"):
        assert word not in text, word
    missing = []
    for m in re.finditer(r"`([^`\s]+)`", text):
        path = m.group(1).rstrip(".,:;")
        if path.split("/")[0] in TOP_DIRS and "/" in path and "<" not in path and "{" not in path:
            if not list(ROOT.glob(path)):
                missing.append(path)
    assert not missing, f"paths named in README.md that do not exist: {missing}"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A copy of the repository (as a new user's clone) and the database variables the README names."""
    from emulator.testing.databases import mariadb, postgres

    work = tmp_path_factory.mktemp("readme") / "repo"
    shutil.copytree(
        ROOT,
        work,
        ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache"),
    )
    with postgres() as pg, mariadb() as my:
        e = dict(os.environ)
        e.update(pg.env)
        e.update(my.env)
        e["PYTHONPATH"] = str(work)
        e["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{e.get('PATH', '')}"
        yield work, e


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run in a process group of its own, and end the whole group afterwards: a block that fails (or times
    out) half-way must not leave a background emulator running."""
    p = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = p.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        err += "\n(timed out after 300 s)"
    finally:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(argv, p.returncode, out, err)


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_block_runs(block: Block, env):
    work, e = env
    kind = RUN[block.lang]
    if kind == "sh":
        argv = ["bash", "-euo", "pipefail", "-c", block.code]
    elif re.search(r"^def test_", block.code, re.M):
        path = work / f"test_readme_{block.line}.py"
        path.write_text(block.code)
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)]
    else:
        path = work / f"readme_{block.line}.py"
        path.write_text(block.code)
        argv = [sys.executable, str(path)]
    r = _run(argv, work, e)
    assert r.returncode == 0, (
        f"README.md line {block.line} ({block.lang}) exited {r.returncode}\n--- stdout\n{r.stdout[-4000:]}"
        f"\n--- stderr\n{r.stderr[-4000:]}"
    )
    # a comment showing a record line (`# dbserver1.public.orders READ ...`) is output the block must print
    for shown in re.findall(r"^# (dbserver\S* .*)$", block.code, re.M):
        assert shown in r.stdout.splitlines(), (
            f"README.md line {block.line} shows {shown!r}; printed:\n{r.stdout}"
        )
    for shown in re.findall(r"# (exit code \d+)$", block.code, re.M):
        assert shown in r.stdout.splitlines(), (
            f"README.md line {block.line} says {shown!r}; printed:\n{r.stdout}"
        )
