"""Options of the data-plane campaign that session 19 emulated (before, the emulator refused them, so the draws left
them out): `TimestampConverter$Value` parsing a string with its pattern — a stage after a drawn conversion to
string, reading the text back with the same pattern into a Timestamp, unix time (any precision), Date or string — and `InsertHeader` decimal literals (float32, or the integer of a whole
decimal: Values.parseString). The chains above rarely draw a TimestampConverter (3 in 600 trials), so ~20 % of the
trials are "date trials": the unwrapped rows of a workload with dates before 1582 (`mariadb_more_connect.sql`'s
DATETIME '1000-01-01', `pg_more_connect.sql`'s DATE '0001-01-01') or ZonedTimestamp strings, one temporal column
converted under a drawn `time.precision.mode` (MicroTimestamps read as milliseconds: years past 9999 and BC);
~8 % of the PostgreSQL trials run EventRouter `table.expand.json.payload` on `pg_outbox_names_connect.sql`
(JSON keys Avro rejects) under a drawn `field.name.adjustment.mode`.

From random streams of their own, applied after the others and only from seed 102 (S19_FROM_SEED): older seeds
keep their trials whole.
"""

from __future__ import annotations

import random

from emulator.testing.connect_draw_props import base_props

K = "org.apache.kafka.connect.transforms."
TC = K + "TimestampConverter$Value"
S19_FROM_SEED = 102
JSON = "org.apache.kafka.connect.json.JsonConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
TIMES = {
    "mariadb": {"mariadb_more_connect.sql": ("dt", "ts")},
    "pg": {
        "pg_more_connect.sql": ("at_local", "day", "at_tz"),
        "pg_types_connect.sql": ("ts", "day", "tstz"),
    },
}
PRECISION = {
    "mariadb": ("connect", "adaptive_time_microseconds"),
    "pg": ("connect", "adaptive", "adaptive_time_microseconds"),
}
FORMATS = ("yyyy-MM-dd HH:mm:ss.SSS", "yyyy/MM/dd", "dd.MM.yy 'at' HH:mm", "yyyyMMddHHmmss", "yyyy-MM-dd")
OUTBOX_NAMES = "pg_outbox_names_connect.sql"
DECIMALS = ("1.5", "0.1", "-2.50", "1.0", "16777217.5", "99.99", "-0.0", "0.000001")


def _insert_after(props: dict[str, str], after: str, alias: str, opts: dict[str, str]) -> None:
    aliases = [a for a in props.get("transforms", "").split(",") if a]
    aliases.insert(aliases.index(after) + 1, alias)
    props["transforms"] = ",".join(aliases)
    for k, v in opts.items():
        props[f"transforms.{alias}.{k}"] = v


def _dates_trial(rng: random.Random, db: str) -> tuple[dict[str, str], str]:
    workload = rng.choice(sorted(TIMES[db]))
    props = base_props(db, "tables")
    props.pop("table.include.list", None)  # the workload's own tables
    if rng.random() < 0.7:
        props["time.precision.mode"] = rng.choice(PRECISION[db])
    props["transforms"] = "u19"
    props["transforms.u19.type"] = "io.debezium.transforms.ExtractNewRecordState"
    field = rng.choice(TIMES[db][workload])
    fmt = rng.choice(FORMATS)
    stage = {"type": TC, "field": field, "format": fmt}
    stage["target.type"] = rng.choice(("string", "string", "string", "Timestamp", "unix", "Date"))
    _insert_after(props, "u19", "tc19", stage)
    if rng.random() < 0.3:
        _insert_after(
            props,
            "tc19",
            "ih19",
            {"type": K + "InsertHeader", "header": "d19", "value.literal": rng.choice(DECIMALS)},
        )
    props["key.converter"] = JSON
    props["value.converter"] = rng.choice((JSON, JSON, STRING))
    if props["value.converter"] == JSON and rng.random() < 0.5:
        props["value.converter.schemas.enable"] = "false"
    props["header.converter"] = rng.choice((SIMPLE, JSON))
    return props, workload


def _outbox_names_trial(rng: random.Random) -> tuple[dict[str, str], str]:
    """EventRouter's expanded JSON payloads with keys Avro rejects, under a drawn field.name.adjustment.mode."""
    props = base_props("pg", "tables")
    props["table.include.list"] = r"public\.outbox"
    props["transforms"] = "o19"
    props["transforms.o19.type"] = "io.debezium.transforms.outbox.EventRouter"
    props["transforms.o19.table.expand.json.payload"] = "true"
    props["transforms.o19.field.name.adjustment.mode"] = rng.choice(("none", "avro", "avro_unicode"))
    if rng.random() < 0.3:
        props["transforms.o19.table.json.payload.null.behavior"] = "optional_bytes"
    props["key.converter"] = JSON
    props["value.converter"] = rng.choice((JSON, JSON, STRING))
    props["header.converter"] = rng.choice((SIMPLE, JSON))
    return props, OUTBOX_NAMES


def add_s19(
    seed: int, trial: int, db: str, workload: str, props: dict[str, str]
) -> tuple[dict[str, str], str]:
    if seed < S19_FROM_SEED:
        return props, workload
    dates = random.Random(f"s19dates-{seed}/{trial}/{db}")
    r = dates.random()
    if r < 0.2:
        props, workload = _dates_trial(dates, db)
    elif db == "pg" and r < 0.28:
        props, workload = _outbox_names_trial(dates)
    rng = random.Random(f"s19-{seed}/{trial}/{db}")
    out = dict(props)
    aliases = [a for a in out.get("transforms", "").split(",") if a]
    for alias in aliases:
        pre = f"transforms.{alias}."
        kind = out.get(pre + "type")
        if kind == TC and out.get(pre + "target.type") == "string" and out.get(pre + "format"):
            if rng.random() < 0.6:
                # (string again: Kafka parses and formats with its one pattern, a round trip)
                back = {"type": TC, "field": out.get(pre + "field", ""), "format": out[pre + "format"]}
                back["target.type"] = rng.choice(("Timestamp", "unix", "Date", "string"))
                if back["target.type"] == "unix" and rng.random() < 0.5:
                    back["unix.precision"] = rng.choice(("seconds", "microseconds", "nanoseconds"))
                _insert_after(out, alias, alias + "p19", back)
        elif kind == K + "InsertHeader" and rng.random() < 0.3:
            out[pre + "value.literal"] = rng.choice(DECIMALS)
    return out, workload
