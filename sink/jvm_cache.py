"""The driver JVM's class cache: a CDS (class data sharing) archive of the classes Spark loaded last time.

Starting Spark loads ~15k classes from 280 jars; on a busy 2-core machine that is most of the 10-20 s from
process start to the first job. Java 17 can dump the classes a run loaded into an archive when the JVM exits
(`-XX:ArchiveClassesAtExit`) and map it at the next start (`-XX:SharedArchiveFile`), which roughly halves the
session start and the first job's class loading. The archive belongs to one Java and one Spark
installation (the JVM refuses, silently here, an archive of another classpath), so its name carries a hash of
both. The first run on a machine writes it (under a name of its own, adopted by the next start: two sinks
starting together never write the same file); `DBZ_SINK_JVM_CACHE=off` turns it off, `DBZ_SINK_JVM_CACHE=DIR`
moves it (default `$XDG_CACHE_HOME/dbz-sink`, else `~/.cache/dbz-sink`).
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil

QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"  # the dump's warnings would go to the sink's stdout


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


def _key() -> str | None:
    """What the archive depends on: the Java binary, the Spark jars, the submit arguments."""
    import pyspark

    java = _java()
    if java is None:
        return None
    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
    st = os.stat(java)
    parts = [java, str(st.st_size), str(st.st_mtime_ns), pyspark.__version__, jars]
    parts += [os.environ.get(k, "") for k in ("PYSPARK_SUBMIT_ARGS", "SPARK_HOME", "SPARK_CONF_DIR")]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def java_options() -> str:
    """The JVM options that use the archive, or that write it when there is none yet ('' when off)."""
    d = _cache_dir()
    key = _key() if d else None
    if d is None or key is None:
        return ""
    final = os.path.join(d, f"spark-{key}.jsa")
    if not os.path.exists(final):
        # a finished dump of an earlier run becomes the archive: its process is gone and the JVM, which dumps
        # as it exits after its Python parent, has not touched the file for a while
        for part in sorted(glob.glob(final + ".*.part")):
            if not _writing(part):
                os.replace(part, final)
                break
    if os.path.exists(final):
        for part in glob.glob(final + ".*.part"):  # a dump of a sink that started beside the first one
            if not _writing(part):
                os.remove(part)
        return f"-XX:SharedArchiveFile={final} {QUIET}"
    try:
        os.makedirs(d, exist_ok=True)
    except OSError:
        return ""
    if any(_writing(p) for p in glob.glob(final + ".*.part")):
        return ""  # another sink is writing it
    return f"-XX:ArchiveClassesAtExit={final}.{os.getpid()}.part {QUIET}"


def _writing(part: str) -> bool:
    """A dump named after a live process, or written to less than a minute ago."""
    import time

    pid = part.rsplit(".", 2)[-2]
    try:
        recent = time.time() - os.path.getmtime(part) < 60
    except OSError:
        return True
    return recent or (pid.isdigit() and _alive(int(pid)))
