"""sink.jvm_cache: which JVM options a start gets, and the lock `sink warm` writes the archive under (no JVM
started here; the archive's effect is measured by bench/bench_sink.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import orjson

from sink import jvm_cache


def _opts(tmp_path, monkeypatch) -> str:
    monkeypatch.setenv("DBZ_SINK_JVM_CACHE", str(tmp_path))
    monkeypatch.delenv(jvm_cache.DUMP_ENV, raising=False)
    return jvm_cache.java_options()


def _dead_pid() -> int:
    p = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    return int(p.stdout)


def test_a_users_run_never_dumps(tmp_path, monkeypatch):
    # dumping at exit kept the first run's JVM alive after the run had ended: without an archive, no option
    assert _opts(tmp_path, monkeypatch) == ""
    assert os.listdir(tmp_path) == []


def test_an_archive_is_mapped(tmp_path, monkeypatch):
    monkeypatch.setenv("DBZ_SINK_JVM_CACHE", str(tmp_path))
    final = jvm_cache.archive_path()
    assert final.startswith(f"{tmp_path}/spark-") and final.endswith(".jsa")
    with open(final, "wb") as f:
        f.write(b"x")
    o = _opts(tmp_path, monkeypatch)
    assert o.split()[0] == f"-XX:SharedArchiveFile={final}"
    assert "-Xlog:cds=off" in o  # the JVM's CDS warnings must not reach the sink's stdout


def test_warms_own_run_dumps_where_it_is_told(tmp_path, monkeypatch):
    monkeypatch.setenv("DBZ_SINK_JVM_CACHE", str(tmp_path))
    monkeypatch.setenv(jvm_cache.DUMP_ENV, str(tmp_path / "x.part"))
    o = jvm_cache.java_options()
    assert o.split()[0] == f"-XX:ArchiveClassesAtExit={tmp_path}/x.part"
    assert "-Xlog:cds+dynamic=off" in o


def test_one_writer_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setenv("DBZ_SINK_JVM_CACHE", str(tmp_path))
    final = jvm_cache.archive_path()
    part = jvm_cache.claim(final)
    assert part == f"{final}.{os.getpid()}.part"
    assert jvm_cache.being_written(final)
    assert jvm_cache.claim(final) is None  # this process is alive: its dump may be under way
    jvm_cache.release(part)
    assert not jvm_cache.being_written(final)
    assert not os.path.exists(final + ".lock")


def test_a_killed_writers_lock_and_dump_are_taken_over(tmp_path, monkeypatch):
    monkeypatch.setenv("DBZ_SINK_JVM_CACHE", str(tmp_path))
    final = jvm_cache.archive_path()
    dead = _dead_pid()
    with open(final + ".lock", "w") as f:
        f.write(str(dead))
    with open(f"{final}.{dead}.part", "wb") as f:
        f.write(b"half")
    assert not jvm_cache.being_written(final)
    assert jvm_cache.claim(final) == f"{final}.{os.getpid()}.part"
    assert not os.path.exists(f"{final}.{dead}.part")


def test_off(monkeypatch):
    monkeypatch.setenv("DBZ_SINK_JVM_CACHE", "off")
    assert jvm_cache.archive_path() is None
    assert jvm_cache.java_options() == ""


def test_warms_input_is_what_the_sink_reads(tmp_path):
    from sink.job import check_source
    from sink.split import split_line
    from sink.warm import TOPIC, records

    (tmp_path / f"{TOPIC}.jsonl").write_bytes(records())
    check_source(str(tmp_path))  # refuses (UsageError) what is not JsonConverter records with schemas
    lines = records().splitlines()
    ops = [orjson.loads(x)["value"] and orjson.loads(x)["value"]["payload"]["op"] for x in lines]
    assert ops == ["r"] * 5 + ["u", "c", "d", None]  # written by hand: a snapshot, changes, a tombstone
    assert all(split_line(x) is not None for x in lines)  # the reader's fast path, as Debezium's layout takes


def test_warm_with_the_cache_off_starts_nothing(tmp_path):
    env = dict(os.environ, DBZ_SINK_JVM_CACHE="off")
    p = subprocess.run([sys.executable, "-m", "sink", "warm"], env=env, capture_output=True, text=True)
    assert p.returncode == 0 and "no class cache" in p.stdout


def _archive(path, age_s: float) -> str:
    with open(path, "wb") as f:
        f.write(b"jsa")
    t = os.path.getmtime(path) - age_s
    os.utime(path, (t, t))
    return str(path)


def test_prune_keeps_the_new_archive_and_the_most_recently_used(tmp_path, monkeypatch):
    monkeypatch.setenv("DBZ_SINK_JVM_CACHE", str(tmp_path))
    new = _archive(tmp_path / "spark-new.jsa", 0)
    old = _archive(tmp_path / "spark-old.jsa", 3000)
    older = _archive(tmp_path / "spark-older.jsa", 2000)  # but used just now (below): it stays
    _archive(tmp_path / "spark-oldest.jsa", 4000)
    monkeypatch.setattr(jvm_cache, "archive_path", lambda: older)
    assert jvm_cache.java_options().startswith(f"-XX:SharedArchiveFile={older}")  # marks it used
    removed = jvm_cache.prune(new, limit=2)
    assert sorted(os.listdir(tmp_path)) == ["spark-new.jsa", "spark-older.jsa"]
    assert sorted(removed) == sorted([old, str(tmp_path / "spark-oldest.jsa")])


def test_prune_never_removes_a_mapped_archive_nor_a_live_writers_dump(tmp_path):
    new = _archive(tmp_path / "spark-new.jsa", 0)
    mapped = _archive(tmp_path / "spark-mapped.jsa", 5000)
    # a process that maps the file, as a running JVM maps its archive for its whole life
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import mmap, sys; f = open(sys.argv[1], 'rb'); m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ);"
            " print('mapped', flush=True); sys.stdin.read()",
            mapped,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "mapped"
        # a live writer (this process) of another key, and the leftovers of a killed one
        live = str(tmp_path / "spark-live.jsa")
        part = jvm_cache.claim(live)
        with open(part, "wb") as f:  # its JVM's dump under way
            f.write(b"dumping")
        dead = _dead_pid()
        with open(tmp_path / "spark-gone.jsa.lock", "w") as f:
            f.write(str(dead))
        with open(tmp_path / f"spark-gone.jsa.{dead}.part", "wb") as f:
            f.write(b"half")
        jvm_cache.prune(new, limit=1)
        left = sorted(os.listdir(tmp_path))
        assert left == sorted(
            ["spark-new.jsa", "spark-mapped.jsa", "spark-live.jsa.lock", os.path.basename(part)]
        ), left
    finally:
        holder.stdin.close()
        holder.wait(10)
    jvm_cache.release(part)
    jvm_cache.prune(new, limit=1)  # no longer mapped
    assert os.listdir(tmp_path) == ["spark-new.jsa"]


def test_only_classpath_arguments_make_another_archive(tmp_path, monkeypatch):
    monkeypatch.setenv("DBZ_SINK_JVM_CACHE", str(tmp_path))
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS", raising=False)
    plain = jvm_cache.archive_path()
    monkeypatch.setenv(
        "PYSPARK_SUBMIT_ARGS", "--conf spark.executor.memory=2g --master local[1] pyspark-shell"
    )
    assert jvm_cache.archive_path() == plain  # the driver loads the same classes
    for args in (
        "--jars /opt/x.jar pyspark-shell",
        "--jars=/opt/x.jar pyspark-shell",
        "--packages io.delta:delta-spark_2.13:4.0.0 pyspark-shell",
        "--conf spark.driver.extraClassPath=/opt/y.jar pyspark-shell",
    ):
        monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", args)
        assert jvm_cache.archive_path() != plain, args
    x = jvm_cache.archive_path()
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", "--conf spark.driver.extraClassPath=/opt/z.jar pyspark-shell")
    assert jvm_cache.archive_path() != x


def test_a_new_jdk_base_archive_makes_another_archive(tmp_path, monkeypatch):
    # ours extends the JDK's lib/server/classes.jsa; `java -Xshare:dump` rewrites that file in place, after
    # which the JVM silently refused the archive of the same key
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    (home / "lib" / "server").mkdir(parents=True)
    (home / "bin" / "java").write_bytes(b"java")
    base = home / "lib" / "server" / "classes.jsa"
    base.write_bytes(b"base archive")
    monkeypatch.setenv("JAVA_HOME", str(home))
    monkeypatch.setenv("DBZ_SINK_JVM_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS", raising=False)
    before = jvm_cache.archive_path()
    assert jvm_cache.archive_path() == before
    base.write_bytes(b"base archive, dumped again")
    os.utime(base, ns=(1, 1))
    assert jvm_cache.archive_path() != before
