"""Private, atomic state files (issue 14 item 5).

Offsets, schema history and output files are created owner-only and replaced atomically; a corrupted or
wrongly shaped offsets or schema-history file stops the connector with exit 2 and one line naming the file
- on a real PostgreSQL and a real MariaDB - instead of a silent re-snapshot or an AttributeError.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from emulator.api import Capture
from emulator.offsets import FileOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.records import Record
from emulator.statefiles import StateFileError, write_atomic
from emulator.testing import mariadbserver
from emulator.testing.mariadbserver import MariaDbServer
from emulator.testing.pgserver import PgServer


def _mode(p: Path) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


# -- permissions and atomic replacement ---------------------------------------------------------------------------


def test_offsets_are_owner_only_and_replaced_atomically(tmp_path) -> None:
    path = tmp_path / "new" / "deeper" / "offsets.json"
    store = FileOffsetStore(path, {"server": "a"})
    store.save({"lsn": 1})
    assert _mode(path) == 0o600
    assert _mode(path.parent) == 0o700 and _mode(path.parent.parent) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["offsets.json"]  # no temporary file left
    ino = os.stat(path).st_ino
    store.save({"lsn": 2})
    assert os.stat(path).st_ino != ino  # a new file renamed over the old one, not rewritten in place
    assert FileOffsetStore(path, {"server": "a"}).load() == {"lsn": 2}
    # a mode the operator chose is kept
    os.chmod(path, 0o640)
    store.save({"lsn": 3})
    assert _mode(path) == 0o640


def test_existing_directories_keep_their_mode(tmp_path) -> None:
    d = tmp_path / "shared"
    d.mkdir(mode=0o755)
    os.chmod(d, 0o755)
    write_atomic(d / "f", b"x")
    assert _mode(d) == 0o755 and _mode(d / "f") == 0o600


def test_directory_output_is_owner_only(tmp_path) -> None:
    out = DirectoryOutput(tmp_path / "out")
    out.write(Record("t1", b'{"k":1}', b'{"v":1}'))
    out.close()
    assert _mode(tmp_path / "out") == 0o700
    assert _mode(tmp_path / "out" / "t1.jsonl") == 0o600


def test_directory_output_files_follow_a_readable_directory(tmp_path) -> None:
    # the configured route: a directory the user made readable (a sink reading as another user) gets
    # files readable by the same readers, never writable by them
    d = tmp_path / "shared-out"
    d.mkdir()
    os.chmod(d, 0o750)
    out = DirectoryOutput(d)
    out.write(Record("t1", b'{"k":1}', b'{"v":1}'))
    out.close()
    assert _mode(d) == 0o750 and _mode(d / "t1.jsonl") == 0o640


BAD_OFFSETS = {
    "garbage": b"\x00\x01not json",
    "empty": b"",
    "array": b"[]",
    "no-offset-key": json.dumps({"partition": {"server": "st"}}).encode(),
    "offset-not-object": json.dumps({"partition": {"server": "st"}, "offset": 5}).encode(),
    "lsn-a-string": json.dumps(
        {"partition": {"server": "st"}, "offset": {"lsn": "0/16B3748", "lsn_commit": 1}}
    ).encode(),
    "other-partition": json.dumps({"partition": {"server": "another"}, "offset": {"lsn": 1}}).encode(),
    "tx-count-a-string": json.dumps(
        {
            "partition": {"server": "st"},
            "offset": {"lsn": 1, "transaction_data_collection_order_public.a": "7"},
        }
    ).encode(),
    "tx-id-a-number": json.dumps(
        {"partition": {"server": "st"}, "offset": {"lsn": 1, "transaction_id": 730}}
    ).encode(),
    "bad-incremental": json.dumps(
        {"partition": {"server": "st"}, "offset": {"lsn": 1, "incremental_snapshot_collections": [7]}}
    ).encode(),
}


@pytest.mark.parametrize("name", sorted(BAD_OFFSETS))
def test_bad_offsets_unit(tmp_path, name: str) -> None:
    path = tmp_path / "o.json"
    path.write_bytes(BAD_OFFSETS[name])
    with pytest.raises(StateFileError) as err:
        FileOffsetStore(path, {"server": "st"}).load()
    assert str(path) in str(err.value) and "\n" not in str(err.value)


# -- on real databases: exit 2 naming the file, nothing captured ----------------------------------------------------


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        with server.connect() as c:
            c.execute("CREATE TABLE public.st (id int PRIMARY KEY)")
            c.execute("INSERT INTO public.st VALUES (1), (2)")
        yield server


def _cli(cfg: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "emulator", "run", str(cfg), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("name", ["garbage", "array", "offset-not-object", "lsn-a-string", "other-partition"])
def test_postgres_refuses_a_bad_offsets_file(pg, tmp_path, name: str) -> None:
    offsets = tmp_path / "offsets.json"
    offsets.write_bytes(BAD_OFFSETS[name])
    props = pg.connector_properties(
        **{
            "topic.prefix": "st",
            "slot.name": f"st_{name.replace('-', '_')}",
            "publication.name": "st_pub",
            "offset.storage.file.filename": str(offsets),
            "table.include.list": "public.st",
        }
    )
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"name": props["name"], "config": props}))
    r = _cli(cfg, tmp_path / "out")
    assert r.returncode == 2, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and str(offsets) in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    written = (
        [p for p in (tmp_path / "out").glob("*.jsonl") if p.stat().st_size]
        if (tmp_path / "out").exists()
        else []
    )
    assert written == []  # no snapshot
    assert offsets.read_bytes() == BAD_OFFSETS[name]  # left for the user to look at


@pytest.fixture(scope="module")
def maria():
    if not mariadbserver.available():
        pytest.skip("MariaDB server binaries not installed")
    with MariaDbServer() as s:
        s.sql("CREATE DATABASE sf; CREATE TABLE sf.t (id INT PRIMARY KEY);")
        yield s


def _maria_props(maria: MariaDbServer, work: Path) -> dict[str, str]:
    return maria.connector_properties(
        **{
            "topic.prefix": "sf",
            "database.include.list": "sf",
            "database.server.id": "6101",
            "schema.history.internal.file.filename": str(work / "history.dat"),
            "offset.storage.file.filename": str(work / "offsets.json"),
            "offset.flush.interval.ms": "100",
        }
    )


def _first_run(maria: MariaDbServer, work: Path) -> None:
    """A run that snapshots and streams a DDL, leaving offsets and a history of several lines."""
    cap = Capture(_maria_props(maria, work)).start()
    try:
        deadline = time.monotonic() + 60
        while not getattr(cap.runner.connector, "streaming", False):
            assert cap.error is None and time.monotonic() < deadline, cap.error
            time.sleep(0.05)
        maria.sql("ALTER TABLE sf.t ADD COLUMN c INT; INSERT INTO sf.t VALUES (1, 1);")
        cap.wait_for("sf.sf.t", timeout=60)
    finally:
        cap.stop()
    assert _mode(work / "history.dat") == 0o600 and _mode(work / "offsets.json") == 0o600


def test_mariadb_refuses_a_corrupted_schema_history_and_survives_a_torn_last_line(maria, tmp_path) -> None:
    _first_run(maria, tmp_path)
    history = tmp_path / "history.dat"
    good = history.read_bytes()
    lines = good.splitlines(keepends=True)
    assert len(lines) >= 3
    cfg = tmp_path / "c.properties"
    cfg.write_text("".join(f"{k}={v}\n" for k, v in _maria_props(maria, tmp_path).items()))
    for label, bad in [
        ("garbage line", lines[0] + b"{not json\n" + b"".join(lines[1:])),
        ("wrong shape", lines[0] + b'{"position": 3, "ddl": "x"}\n' + b"".join(lines[1:])),
        (
            "bad table",
            lines[0]
            + json.dumps(
                {
                    "position": {"file": "binlog.000001", "pos": 4},
                    "ddl": "x",
                    "tableChanges": [{"type": "CREATE", "id": '"sf"."x"', "table": {"columns": "nope"}}],
                }
            ).encode()
            + b"\n"
            + b"".join(lines[1:]),
        ),
    ]:
        history.write_bytes(bad)
        r = _cli(cfg, tmp_path / "out")
        assert r.returncode == 2, (label, r.stderr)
        errs = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
        assert len(errs) == 1 and str(history) in errs[0], (label, r.stderr)
        assert "Traceback" not in r.stderr
    # a crash in the middle of an append: the fragment is dropped and the connector goes on
    history.write_bytes(good + b'{"source": {"server": "sf"}, "posit')
    cap = Capture(_maria_props(maria, tmp_path)).start()
    try:
        deadline = time.monotonic() + 60
        while not getattr(cap.runner.connector, "streaming", False):
            assert cap.error is None and time.monotonic() < deadline, cap.error
            time.sleep(0.05)
        maria.sql("INSERT INTO sf.t VALUES (2, 2);")
        rec = cap.wait_for("sf.sf.t", lambda r: r["value"]["payload"]["after"]["id"] == 2, timeout=60)
        assert rec["value"]["payload"]["op"] == "c"
    finally:
        cap.stop()
    assert history.read_bytes().startswith(good) and b"posit" not in history.read_bytes()[len(good) :]


def test_worker_state_is_owner_only(tmp_path) -> None:
    """The REST worker's connector state holds the configuration, password included."""
    from types import SimpleNamespace

    from emulator.worker import Worker

    w = Worker(tmp_path / "state", out=tmp_path / "out")
    w._persist(SimpleNamespace(name="c1", config={"database.password": "pw"}, target="RUNNING"))
    assert _mode(tmp_path / "state") == 0o700 and _mode(tmp_path / "state" / "connectors") == 0o700
    assert _mode(tmp_path / "state" / "offsets") == 0o700
    assert _mode(w._path("c1")) == 0o600
    assert json.loads(w._path("c1").read_text())["config"] == {"database.password": "pw"}
