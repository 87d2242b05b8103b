"""`--stdout`: readable lines with values decoded by their schema's logical names, `--raw` for the records
themselves. Expected renderings are written by hand (the encoded values were worked out by hand too: 12.50 at
scale 2 is unscaled 1250 = 0x04E2 = "BOI="; 2024-01-31 is day 19753 since the epoch)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import orjson
import pytest

from emulator.outputs.stdout import StdoutOutput, render_record
from emulator.records import Record


def _f(name: str, type_: str, logical: str | None = None, **params) -> dict:
    d = {"type": type_, "optional": True, "field": name}
    if logical:
        d["name"] = logical
    if params:
        d["parameters"] = {k: str(v) for k, v in params.items()}
    return d


ROW_FIELDS = [
    {"type": "int32", "optional": False, "field": "id"},
    _f("price", "bytes", "org.apache.kafka.connect.data.Decimal", scale=2),
    {
        "type": "struct",
        "optional": True,
        "field": "amount",
        "name": "io.debezium.data.VariableScaleDecimal",
        "fields": [
            {"type": "int32", "optional": False, "field": "scale"},
            {"type": "bytes", "optional": False, "field": "value"},
        ],
    },
    _f("day", "int32", "io.debezium.time.Date"),
    _f("at", "int64", "io.debezium.time.MicroTimestamp"),
    _f("at_ms", "int64", "io.debezium.time.Timestamp"),
    _f("t", "int64", "io.debezium.time.MicroTime"),
    _f("neg", "int64", "io.debezium.time.MicroTime"),
    _f("dur", "int64", "io.debezium.time.MicroDuration"),
    _f("data", "bytes"),
    _f("flags", "bytes", "io.debezium.data.Bits", length=3),
    _f("zoned", "string", "io.debezium.time.ZonedTimestamp"),
    _f("note", "string"),
    _f("gone", "string"),
]
ROW = {
    "id": 7,
    "price": "BOI=",
    "amount": {"scale": 3, "value": "z8c="},
    "day": 19753,
    "at": 1706695872345600,
    "at_ms": 1706695872000,
    "t": 36672000000,
    "neg": -3723000000,
    "dur": 93784500000,
    "data": "Cgs=",
    "flags": "BQ==",
    "zoned": "2024-01-31T10:11:12.345Z",
    "note": "héllo",
    "gone": None,
}
EXPECTED_ROW = (
    '{"id": 7, "price": 12.50, "amount": -12.345, "day": "2024-01-31", "at": "2024-01-31T10:11:12.3456", '
    '"at_ms": "2024-01-31T10:11:12", "t": "10:11:12", "neg": "-01:02:03", "dur": "P1DT2H3M4.5S", '
    '"data": 0x0a0b, "flags": 0b101, "zoned": "2024-01-31T10:11:12.345Z", "note": "héllo", "gone": null}'
)


def _value(op: str, before, after) -> bytes:
    row_schema = {
        "type": "struct",
        "optional": True,
        "name": "dbserver1.public.t.Value",
        "fields": ROW_FIELDS,
    }
    schema = {
        "type": "struct",
        "optional": False,
        "name": "dbserver1.public.t.Envelope",
        "fields": [
            {**row_schema, "field": "before"},
            {**row_schema, "field": "after"},
            {"type": "string", "optional": False, "field": "op"},
        ],
    }
    return orjson.dumps({"schema": schema, "payload": {"before": before, "after": after, "op": op}})


KEY = orjson.dumps(
    {
        "schema": {
            "type": "struct",
            "optional": False,
            "name": "dbserver1.public.t.Key",
            "fields": [{"type": "int32", "optional": False, "field": "id"}],
        },
        "payload": {"id": 7},
    }
)


def test_insert_renders_decoded_values():
    line = render_record(Record("dbserver1.public.t", KEY, _value("c", None, ROW)))
    assert line == f'dbserver1.public.t INSERT key={{"id": 7}} {EXPECTED_ROW}'


def test_delete_shows_before_and_tombstone():
    assert render_record(Record("dbserver1.public.t", KEY, _value("d", ROW, None))) == (
        f'dbserver1.public.t DELETE key={{"id": 7}} {EXPECTED_ROW}'
    )
    assert (
        render_record(Record("dbserver1.public.t", KEY, None)) == 'dbserver1.public.t TOMBSTONE key={"id": 7}'
    )


def test_values_outside_what_the_schema_says_are_shown_as_sent():
    row = {**ROW, "price": "not base64!", "day": 10**9}
    line = render_record(Record("dbserver1.public.t", KEY, _value("r", None, row)))
    assert '"price": "not base64!"' in line and '"day": 1000000000' in line and line.split()[1] == "READ"


def test_without_schemas_payloads_are_plain_json():
    value = orjson.dumps({"before": None, "after": {"id": 1, "price": "BOI="}, "op": "u"})
    assert (
        render_record(Record("p.s.t", b'{"id":1}', value))
        == 'p.s.t UPDATE key={"id":1} {"id":1,"price":"BOI="}'
    )


def test_raw_is_the_record_itself():
    out = io.StringIO()
    rec = Record("dbserver1.public.t", KEY, _value("c", None, ROW), [("h", b'"x"')])
    StdoutOutput(out, raw=True).write(rec)
    doc = orjson.loads(out.getvalue())
    assert doc["topic"] == "dbserver1.public.t" and doc["headers"] == [["h", "x"]]
    assert doc["value"]["payload"]["after"]["price"] == "BOI=" and doc["key"]["payload"] == {"id": 7}


@pytest.fixture(scope="module")
def pg():
    from emulator.testing.pgserver import PgServer

    with PgServer() as server:
        server.psql(
            "CREATE TABLE public.t (id int PRIMARY KEY, price numeric(8,2), amount numeric, day date, "
            "at timestamp(6), data bytea, dur interval, at_tz timestamptz);"
            "INSERT INTO public.t VALUES (1, 12.50, -12.345, '2024-01-31', '2024-01-31 10:11:12.3456', "
            "'\\x0a0b', '1 day 02:03:04.5', '2024-01-31 10:11:12+00');"
        )
        yield server


def _run(pg, *flags: str) -> list[str]:
    props = pg.connector_properties(
        **{
            "snapshot.mode": "initial_only",
            "slot.name": "stdout_" + "_".join(f.strip("-") for f in flags) or "plain",
        }
    )
    path = os.path.join(pg.base, f"stdout{len(flags)}.properties")
    with open(path, "w") as f:
        f.writelines(f"{k}={v}\n" for k, v in props.items())
    r = subprocess.run(
        [sys.executable, "-m", "emulator", "run", path, "--stdout", *flags],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_cli_stdout_decodes_a_real_snapshot(pg):
    assert _run(pg) == [
        'dbserver1.public.t READ key={"id": 1} {"id": 1, "price": 12.50, "amount": -12.345, "day": "2024-01-31", '
        '"at": "2024-01-31T10:11:12.3456", "data": 0x0a0b, "dur": "P1DT2H3M4.5S", '
        '"at_tz": "2024-01-31T10:11:12.000000Z"}'
    ]


@pytest.mark.parametrize("flag", ["--raw", "--full"])
def test_cli_raw(pg, flag):
    (line,) = _run(pg, flag)
    doc = orjson.loads(line)
    assert doc["topic"] == "dbserver1.public.t"
    after = doc["value"]["payload"]["after"]
    assert after["price"] == "BOI=" and after["day"] == 19753 and after["data"] == "Cgs="
    assert after["amount"] == {"scale": 3, "value": "z8c="}


def test_cli_stdout_decodes_a_real_mariadb_snapshot(tmp_path):
    """Binlog connector types: BIT(n) as little-endian Bits, negative TIME, DATETIME(6), TIMESTAMP (zoned
    text), BLOB, YEAR, ENUM/SET, DECIMAL; BIGINT UNSIGNED max is -1 in Debezium's default `long` mode."""
    from emulator.testing.databases import mariadb

    with mariadb() as db:
        db.execute(
            "CREATE TABLE t (id int PRIMARY KEY, b bit(3), b12 bit(12), t time(3), d date, dt datetime(6), "
            "ts timestamp(3) NULL, bl blob, y year, e enum('x','y'), s set('a','b'), u bigint unsigned, "
            "dc decimal(6,3))"
        )
        db.execute(
            "INSERT INTO t VALUES (1, b'101', b'100000000011', '-01:02:03.5', '2024-01-31', "
            "'2024-01-31 10:11:12.3456', '2024-01-31 10:11:12.345', x'0a0b', 2024, 'y', 'a,b', "
            "18446744073709551615, -1.5)"
        )
        props = db.connector_properties(
            **{
                "snapshot.mode": "initial_only",
                "include.schema.changes": "false",
                "table.include.list": "app.t",
            }
        )
        path = tmp_path / "m.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        r = subprocess.run(
            [sys.executable, "-m", "emulator", "run", str(path), "--stdout"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        'dbserver1.app.t READ key={"id": 1} {"id": 1, "b": 0b101, "b12": 0b100000000011, "t": "-01:02:03.5", '
        '"d": "2024-01-31", "dt": "2024-01-31T10:11:12.3456", "ts": "2024-01-31T10:11:12.345Z", "bl": 0x0a0b, '
        '"y": 2024, "e": "y", "s": "a,b", "u": -1, "dc": -1.500}'
    ]
