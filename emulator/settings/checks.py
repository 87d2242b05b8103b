"""Value checks and computed defaults used by rows of the property table, and the allowed-value lists
(snapshot modes, time precision, failure modes) several rows share."""

from __future__ import annotations

import re

from emulator.settings.errors import show_value
from emulator.settings.spec import JSON_CONVERTER, SIMPLE_HEADER_CONVERTER, Check, ConfigView

_TOPIC_NAME = re.compile(r"[a-zA-Z0-9_.\-]+")
_SLOT_NAME = re.compile(r"[a-z0-9_]{1,63}")
JAVA_CLASS = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")


def check_topic_prefix(_c: ConfigView, value: str) -> str | None:
    if not _TOPIC_NAME.fullmatch(value):
        return f"{show_value(value)} has invalid characters: only alphanumerics, '-', '.' and '_' are allowed in a topic prefix"
    return None


def check_slot_name(_c: ConfigView, value: str) -> str | None:
    if not _SLOT_NAME.fullmatch(value):
        return (
            f"{show_value(value)} is not a valid replication slot name: only lower-case letters, digits and '_', "
            "at most 63 characters"
        )
    return None


# a recorded change stream (`mongodb.connection.string=file:...`, emulator/connectors/mongodb/streams.py) has no
# server: what only a connection to one uses would be accepted and ignored, so setting it is refused
_MONGODB_SERVER_ONLY = (
    "mongodb.user",
    "mongodb.password",
    "mongodb.authsource",
    "mongodb.authentication.class",
    "mongodb.connect.timeout.ms",
    "mongodb.heartbeat.frequency.ms",
    "mongodb.socket.timeout.ms",
    "mongodb.server.selection.timeout.ms",
    "cursor.max.await.time.ms",
)


def check_mongodb_connection_string(c: ConfigView, value: str) -> str | None:
    if not value.strip().startswith("file:"):
        return None
    for name in sorted(c.props):
        if name in _MONGODB_SERVER_ONLY or name.startswith("mongodb.ssl."):
            return f"a recorded change stream (file:) has no server: {name} cannot apply to it; remove it"
    return None


# emulator/signals/channels.py reads these; Debezium's `jmx` channel needs a JVM: refused, never ignored
_SIGNAL_CHANNELS = ("source", "file", "kafka", "in-process")


def check_signal_channels(_c: ConfigView, value: str) -> str | None:
    available = ", ".join(_SIGNAL_CHANNELS)
    for item in (i.strip().lower() for i in value.split(",")):
        if item and item not in _SIGNAL_CHANNELS:
            return f"channel {show_value(item)} is not available in this emulator; available: {available}"
    return None


# emulator/notifications.py writes these; Debezium's `jmx` channel needs a JVM: refused, never ignored
_NOTIFICATION_CHANNELS = ("sink", "log")


def check_notification_channels(_c: ConfigView, value: str) -> str | None:
    available = ", ".join(_NOTIFICATION_CHANNELS)
    for item in (i.strip().lower() for i in value.split(",")):
        if item and item not in _NOTIFICATION_CHANNELS:
            return f"channel {show_value(item)} is not available in this emulator; available: {available}"
    return None


_SKIPPABLE_OPS = ("c", "u", "d", "t", "r")


def check_skipped_operations(_c: ConfigView, value: str) -> str | None:
    items = [item.strip() for item in value.split(",")]
    if value.strip() == "none":
        return None
    has_none = False
    for item in items:
        if item == "none":
            has_none = True
        elif item not in _SKIPPABLE_OPS:
            return (
                f"{show_value(item)} is not an operation; allowed values: c (create), u (update), d (delete), "
                "t (truncate), r (read), or none"
            )
    if has_none and any(item != "none" for item in items):
        return "'none' cannot be combined with other operations"
    return None


def check_metric_tags(_c: ConfigView, value: str) -> str | None:
    for item in value.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, val = item.partition("=")
        if not sep or not key.strip() or not val.strip():
            return f"{show_value(item)} is not a key=value pair (expected k1=v1,k2=v2)"
    return None


def check_sanitize_pattern(_c: ConfigView, value: str) -> str | None:
    """custom.sanitize.pattern: a regular expression (Debezium compiles it when it logs its configuration at start)."""
    try:
        re.compile(value)
    except re.error as exc:
        return f"invalid regular expression {show_value(value)}: {exc}"
    return None


def check_key_columns(_c: ConfigView, value: str) -> str | None:
    """``<table regex>:<column>[,<column>...]`` entries separated by ``;``."""
    for entry in value.split(";"):
        entry = entry.strip()
        if not entry:
            continue
        table, sep, cols = entry.rpartition(":")
        if not sep or not table.strip() or not cols.strip():
            return f"{show_value(entry)} is not <table regex>:<column>[,<column>...]"
        for rx in [table.strip()] + [f"{table.strip()}.{c.strip()}" for c in cols.split(",") if c.strip()]:
            try:  # each column is a regex too, joined to the table's (Debezium's CustomKeyMapper)
                re.compile(rx)
            except re.error as exc:
                return f"invalid regular expression {show_value(rx)}: {exc}"
    return None


def check_replica_identity(_c: ConfigView, value: str) -> str | None:
    """``<table regex>:<DEFAULT|FULL|NOTHING|INDEX name>`` entries separated by ``,``."""
    for entry in value.split(","):
        entry = entry.strip()
        if not entry:
            continue
        table, sep, ident = entry.rpartition(":")
        ident = ident.strip().upper()
        if not sep or not (ident in ("DEFAULT", "FULL", "NOTHING") or ident.startswith("INDEX ")):
            return f"{show_value(entry)} is not <table>:<DEFAULT|FULL|NOTHING|INDEX name>"
        try:
            re.compile(table.strip())
        except re.error as exc:
            return f"invalid regular expression {show_value(table.strip())}: {exc}"
    return None


def converter_check(allowed: tuple[str, ...]) -> Check:
    def check(_c: ConfigView, value: str) -> str | None:
        if value.strip() not in allowed:
            return f"converter {show_value(value.strip())} is not supported by this emulator; supported: {', '.join(allowed)}"
        return None

    return check


def signal_topic_default(c: ConfigView) -> str | None:
    prefix = c.get("topic.prefix")
    return f"{prefix}-signal" if prefix else None


def lsn_flush_mode_default(c: ConfigView) -> str | None:
    flush = c.props.get("flush.lsn.source")
    if flush is not None and flush.strip().lower() == "false":
        return "manual"
    return "connector"


def header_converter_default(c: ConfigView) -> str | None:
    return JSON_CONVERTER if c.source_format == "debezium-server" else SIMPLE_HEADER_CONVERTER


SNAPSHOT_MODES_PG = (
    "always",
    "initial",
    "initial_only",
    "no_data",
    "when_needed",
    "configuration_based",
    "custom",
)
SNAPSHOT_MODES_BINLOG = (
    "always",
    "initial",
    "initial_only",
    "no_data",
    "when_needed",
    "recovery",
    "configuration_based",
    "custom",
)
SNAPSHOT_MODES_MONGO = SNAPSHOT_MODES_PG
REMOVED_SNAPSHOT_MODES = {
    "never": "no_data",
    "schema_only": "no_data",
    "schema_only_recovery": "recovery",
    "exported": "initial",
}
TIME_PRECISION = (
    "adaptive",
    "adaptive_time_microseconds",
    "connect",
    "isostring",
    "microseconds",
    "nanoseconds",
)
FAILURE_MODES = ("fail", "warn", "skip", "ignore")
