"""The driver JVM's class cache: a CDS (class data sharing) archive of the classes a Spark run loads.

Starting Spark loads ~15k classes from 280 jars; on a busy 2-core machine that is most of the 10-20 s from
process start to the first job. Java 17 can dump the classes a run loaded into an archive when the JVM exits
(`-XX:ArchiveClassesAtExit`) and map it at the next start (`-XX:SharedArchiveFile`), which roughly halves the
session start and the first job's class loading. The archive belongs to one Java and one Spark
installation (the JVM refuses, silently here, an archive of another classpath), so its name carries a hash of
both. A user's run never dumps (the dump kept its JVM alive after the run had ended): `python -m sink warm`
(`sink.warm`) writes it with a throwaway run of its own, started in the background by the first user's run
that finds none. `DBZ_SINK_JVM_CACHE=off` turns it off, `DBZ_SINK_JVM_CACHE=DIR` moves it (default
`$XDG_CACHE_HOME/dbz-sink`, else `~/.cache/dbz-sink`).

Each archive is ~170 MB and a new key (another Java, Spark, or driver classpath) adds one, so `sink warm`
prunes after publishing: it keeps the new archive and the most recently used others up to `MAX_ARCHIVES` in
all (a run that maps an archive marks it used), and removes the rest, each only when no process maps it.
Keeping more than the current key's avoids two configurations in use on one machine evicting each other's
archive at every run (each eviction costs a minute of `sink warm`).
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil

QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"  # the dump's warnings would go to the sink's stdout
DUMP_ENV = "DBZ_SINK_JVM_DUMP"  # set by `sink warm` for its own run: where that run's JVM dumps
MAX_ARCHIVES = 2  # archives kept in the cache directory after `sink warm` published one (~170 MB each)


def _cache_dir() -> str | None:
    d = os.environ.get("DBZ_SINK_JVM_CACHE")
    if d == "off":
        return None
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "dbz-sink")


def _java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return os.path.realpath(java) if java and os.path.exists(java) else None


# submit arguments that change the driver's classpath (what a dynamic archive is bound to); others, such as
# `--conf spark.executor.memory=2g`, share the archive instead of each writing one of ~170 MB
_CLASSPATH_ARGS = ("--jars", "--packages", "--repositories", "--exclude-packages", "--driver-class-path")
_CLASSPATH_CONFS = (
    "spark.jars",
    "spark.jars.packages",
    "spark.jars.repositories",
    "spark.jars.excludes",
    "spark.driver.extraClassPath",
    "spark.driver.userClassPathFirst",
)


def classpath_args(submit_args: str) -> list[str]:
    """The classpath-changing part of PYSPARK_SUBMIT_ARGS."""
    import shlex

    args = shlex.split(submit_args)
    out = []
    for i, a in enumerate(args):
        flag, eq, val = a.partition("=")
        if flag in _CLASSPATH_ARGS:
            out.append(f"{flag}={val if eq else (args[i + 1] if i + 1 < len(args) else '')}")
        elif flag == "--conf":
            kv = val if eq else (args[i + 1] if i + 1 < len(args) else "")
            if kv.split("=", 1)[0] in _CLASSPATH_CONFS:
                out.append(f"--conf={kv}")
    return out


def _key() -> str | None:
    """What the archive depends on: the Java binary, the Spark jars, the classpath's submit arguments."""
    import pyspark

    java = _java()
    if java is None:
        return None
    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
    st = os.stat(java)
    parts = [java, str(st.st_size), str(st.st_mtime_ns), pyspark.__version__, jars]
    # the JDK's own archive, which ours extends: `java -Xshare:dump` rewrites it in place, and the JVM then
    # refuses ours, silently (a run of the 200k-change benchmark lost its class cache that way)
    base = os.path.join(os.path.dirname(os.path.dirname(java)), "lib", "server", "classes.jsa")
    if os.path.exists(base):
        bs = os.stat(base)
        parts += [str(bs.st_size), str(bs.st_mtime_ns)]
    parts += classpath_args(os.environ.get("PYSPARK_SUBMIT_ARGS", ""))
    parts += [os.environ.get(k, "") for k in ("SPARK_HOME", "SPARK_CONF_DIR")]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def archive_path() -> str | None:
    """The archive's file for this Java, Spark and driver classpath (None when the cache is off)."""
    d = _cache_dir()
    key = _key() if d else None
    return None if d is None or key is None else os.path.join(d, f"spark-{key}.jsa")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _owner(lock: str) -> int | None:
    try:
        with open(lock) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return None


def being_written(final: str) -> bool:
    """A `sink warm` (alive) holds the archive's lock."""
    pid = _owner(final + ".lock")
    return pid is not None and _alive(pid)


def claim(final: str) -> str | None:
    """Take the archive's lock for this process; the dump's file name, or None when a live one holds it."""
    lock = final + ".lock"
    try:
        os.makedirs(os.path.dirname(final), exist_ok=True)
    except OSError:
        return None
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            pid = _owner(lock)
            if pid is not None and _alive(pid):
                return None
            _remove(lock)  # its writer is gone (killed): take over
            continue
        except OSError:
            return None
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        for stale in glob.glob(final + ".*.part"):  # dumps of killed writers
            _remove(stale)
        return f"{final}.{os.getpid()}.part"
    return None


def release(part: str) -> None:
    _remove(part)
    _remove(part.rsplit(".", 2)[0] + ".lock")


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def java_options() -> str:
    """The JVM options that map the archive ('' when there is none or the cache is off); in `sink warm`'s own
    run, the option that dumps it."""
    dump = os.environ.get(DUMP_ENV)
    if dump:
        return f"-XX:ArchiveClassesAtExit={dump} {QUIET}"
    final = archive_path()
    if final is None or not os.path.exists(final):
        return ""
    try:
        os.utime(final)  # marks it used: pruning keeps the most recently used archives
    except OSError:
        pass
    return f"-XX:SharedArchiveFile={final} {QUIET}"


def mapped_paths() -> set[str]:
    """Files mapped by the processes we can see (a JVM maps its archive for its whole life)."""
    out: set[str] = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/maps") as f:
                for line in f:
                    if line.endswith(".jsa\n") or ".jsa (deleted)" in line:
                        out.add(line.split(None, 5)[-1].strip())
        except OSError:
            continue
    return out


def prune(keep: str, limit: int = MAX_ARCHIVES) -> list[str]:
    """Remove archives of other keys beyond the `limit` most recently used (`keep`, the one just written,
    always stays) and leftovers of killed writers; never an archive a live process maps. The removed paths."""
    d = os.path.dirname(keep)
    try:
        names = os.listdir(d)
    except OSError:
        return []
    others = []
    for n in names:
        p = os.path.join(d, n)
        if n.startswith("spark-") and n.endswith(".jsa") and p != keep:
            try:
                others.append((os.stat(p).st_mtime, p))
            except OSError:
                continue
    others.sort(reverse=True)
    doomed = [p for _, p in others[max(0, limit - 1) :]]
    removed = []
    if doomed:
        busy = mapped_paths()
        for p in doomed:
            if p not in busy and not being_written(p):
                _remove(p)
                removed.append(p)
    for n in names:  # locks and partial dumps whose writer is gone
        p = os.path.join(d, n)
        if n.endswith(".jsa.lock") and not being_written(p[: -len(".lock")]):
            _remove(p)
            removed.append(p)
        elif n.endswith(".part"):
            pid = n.rsplit(".", 2)[-2]
            if pid.isdigit() and not _alive(int(pid)):
                _remove(p)
                removed.append(p)
    return removed
