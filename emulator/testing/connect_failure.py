"""The words each side of a both-fail connect trial stopped with, made comparable (differential_connect).

A user of real Debezium sees the task fail with Connect's `Caused by: <class>: <message>`; the emulator prints
one line, `error: DataPlaneError: <where> failed on a record of topic T: <message> (errors.tolerance=none)`.
The message is what both print, so the message is compared; the Java class is kept for the report (the
emulator's line names no class). Normalization, applied to both sides, only where the texts cannot be
identical (docs/differential.md "Session 22"):

1. the first line only (the emulator prints a message's first line; Java's may go on);
2. Java identity hash codes, `@` + hex after a class name (`Object.toString` of a SchemaBuilder, a byte[]):
   `@<hash>`;
3. TimestampRouter's `Timestamp missing on record: SourceRecord{...} ConnectRecord{topic='T', ...}` (the whole
   record, with its offsets, run id and clock values) reads `Timestamp missing on record (topic T)`, the
   emulator's words: a deliberate difference (README "Connect data plane", tests/test_connect_failure_text.py's
   strict xfail); the topic of the record it failed on is still compared;
4. a wrapper's message that ends in ` :` (AvroConverter's `Failed to serialize Avro data from topic T :`, whose
   cause Connect prints on the following `Caused by:` lines) is compared as the start of the emulator's, which
   says the cause after it on its one line.

Standard library only.
"""

from __future__ import annotations

import re

_DATA_PLANE = "data plane: "
_JAVA_CLASS = re.compile(r"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)(?:: |$)")
_SEE_LOG = re.compile(r" \(see [^()]*\)$")
_EMULATOR = re.compile(r"failed on a record of topic \S+: (.*) \(errors\.tolerance=none\)")
# a class name (`pkg.Class`, `[B`, `[Lpkg.Class;`) then `@` and Integer.toHexString(hashCode())
_HASH = re.compile(r"((?:[A-Za-z_$][\w$]*\.)+[A-Z][\w$]*|\[+[BCDFIJSZ]|\[+L[\w.$]+;)@[0-9a-f]{1,8}\b")
_TS_ROUTER = re.compile(r"^Timestamp missing on record: SourceRecord\{.*?\} ConnectRecord\{topic='([^']*)'")


def debezium_failure(error: str) -> tuple[str, str] | None:
    """The oracle's meta `error` of a task stopped on a record -> (Java class, message), else None.
    The text is `...data plane: <class>: <message>; <SimpleName>("<message>") (see LOG)`: the exception's
    `str` then its `repr` (oracle_connect joins the engine's errors with "; ")."""
    i = error.find(_DATA_PLANE)
    if i < 0:
        return None
    rest = error[i + len(_DATA_PLANE) :]
    m = _JAVA_CLASS.match(rest)
    if not m:
        return None
    cls = m.group(1)
    msg = rest[m.end() :]
    cut = msg.rfind(f"; {cls.rsplit('.', 1)[-1]}(")
    msg = msg[:cut] if cut >= 0 else _SEE_LOG.sub("", msg)
    return cls, msg


def emulator_failure(log_text: str) -> str | None:
    """The message of the emulator's one line when it stopped on a record (errors.tolerance=none), else None."""
    for line in log_text.splitlines():
        if line.startswith("error: "):
            m = _EMULATOR.search(line)
            return m.group(1) if m else None
    return None


def normalized(message: str) -> str:
    """The rules of the module's docstring, in order."""
    lines = message.strip().splitlines()
    text = _HASH.sub(r"\1@<hash>", lines[0].strip() if lines else "")
    m = _TS_ROUTER.match(text)
    if m:
        return f"Timestamp missing on record (topic {m.group(1)})"
    return text


def compare_failures(debezium_error: str, emulator_log: str) -> str | None:
    """None when both sides stopped on a record with the same normalized message, else what differs."""
    dbz = debezium_failure(debezium_error or "")
    emu = emulator_failure(emulator_log)
    if dbz is None or emu is None:
        missing = "Debezium's" if dbz is None else "the emulator's"
        return f"{missing} failure message not found"
    want, got = normalized(dbz[1]), normalized(emu)
    if want == got or (want.endswith(" :") and got.startswith(want + " ")):
        return None
    return (
        f"messages differ: Debezium {dbz[0]}: {normalized(dbz[1])[:300]} | emulator: {normalized(emu)[:300]}"
    )
