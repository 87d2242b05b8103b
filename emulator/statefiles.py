"""Private, atomic state files: offsets, schema history, connector state, output files.

They hold positions, schemas and (the worker's connector state) passwords, so what the emulator creates is
owner-only: directories 0700, files 0600. A file or directory that already exists keeps the mode its owner
gave it (that is how a deployment configures wider access: create or chmod it beforehand). Whole-file
writes are atomic - a temporary file in the same directory, fsync, rename over the target, fsync the
directory - so a crash leaves the old or the new content, never a torn one.

A state file that exists but cannot be understood is :class:`StateFileError`: one line naming the file and
what is wrong, exit 2 at the command line - never a silent fresh start (a re-snapshot) nor a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


class StateFileError(ValueError):
    """A corrupted or wrongly shaped state file. ``str()`` is one line naming the file."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = str(path)
        super().__init__(
            f"{path}: {problem}; fix or remove the file (removing it starts the connector afresh)"
        )


def private_dir(path: str | Path) -> Path:
    """`path` and its missing parents, created owner-only (existing directories are left as they are)."""
    p = Path(path)
    missing = []
    q = p
    while not q.exists():
        missing.append(q)
        if q.parent == q:
            break
        q = q.parent
    for d in reversed(missing):
        try:
            d.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(d, DIR_MODE)  # mkdir's mode is filtered by the umask; owner-only is the point
    return p


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: str | Path, data: bytes) -> None:
    """Replace `path` with `data`: temp file, fsync, rename, fsync the directory. A new file is 0600; an
    existing one keeps its mode."""
    p = Path(path)
    private_dir(p.parent)
    try:
        mode = os.stat(p).st_mode & 0o7777
    except FileNotFoundError:
        mode = FILE_MODE
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, p)
    _fsync_dir(p.parent)


def open_private(path: str | Path, flags: str = "ab", buffering: int = -1, mode: int = FILE_MODE):
    """`open(path, flags)` where a file it creates is 0600 (and its directory 0700); `mode` widens it where
    the user configured that (see `shared_read_mode`)."""
    p = Path(path)
    private_dir(p.parent)
    os_flags = os.O_CREAT | (os.O_RDWR if "+" in flags or "r" in flags else os.O_WRONLY)
    if "a" in flags:
        os_flags |= os.O_APPEND
    if "w" in flags:
        os_flags |= os.O_TRUNC
    fd = os.open(p, os_flags, mode)
    if mode != FILE_MODE:
        os.fchmod(fd, mode)  # past the umask: the directory's owner asked for readers
    return os.fdopen(fd, flags, buffering=buffering)


def shared_read_mode(directory: str | Path) -> int:
    """The mode for files created in `directory`: owner-only, unless the user made the directory readable
    by its group or others (the "configured" route: e.g. a sink container reading the emulator's output
    as another user), then readable by them too."""
    dir_mode = os.stat(directory).st_mode
    return FILE_MODE | (dir_mode & 0o044)
