"""Transforms: refused configurations (exit 2, one line naming the property), the fast path, and
`errors.tolerance` when a transform fails on records (Connect's behaviour, checked against what real
Debezium did with the same chains in tests/data/connect recordings)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from connect_compare import compare
from emulator_proc import EmulatorProcess, write_properties
from test_connect_goldens import DATA, replay_pg

from emulator.config import ConfigError, from_dict
from emulator.connect import dataplane
from emulator.connect.javatext import float_text
from emulator.connect.transforms.base import Options
from emulator.connect.transforms.headers import parse_literal
from emulator.testing.oracle_connect import sections_of
from emulator.testing.pgserver import PgServer

BASE = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "database.hostname": "127.0.0.1",
    "database.user": "postgres",
    "database.dbname": "postgres",
    "topic.prefix": "dbserver1",
    "plugin.name": "pgoutput",
}
T = "org.apache.kafka.connect.transforms."


def build(**extra: str):
    return dataplane.build(from_dict({**BASE, **extra}))


def refused(**extra: str) -> str:
    with pytest.raises(ConfigError) as e:
        build(**extra)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_no_transforms_default_converters_no_stage() -> None:
    assert build() is None


def test_a_transform_makes_a_stage_and_the_connector_emits_its_internal_form() -> None:
    config = from_dict(
        {
            **BASE,
            "transforms": "r",
            "transforms.r.type": T + "RegexRouter",
            "transforms.r.regex": "x",
            "transforms.r.replacement": "y",
            "value.converter.schemas.enable": "false",
        }
    )
    plane = dataplane.build(config)
    assert plane is not None and [s.alias for s in plane.stages] == ["r"]
    internal = dataplane.internal_config(config)
    assert internal.props["value.converter.schemas.enable"] == "true"
    assert config.props["value.converter.schemas.enable"] == "false"


@pytest.mark.parametrize(
    "cls",
    ["io.debezium.transforms.ContentBasedRouter", "io.debezium.transforms.Filter", "com.example.Mine"],
)
def test_unimplemented_transform_class_refused(cls: str) -> None:
    msg = refused(transforms="x", **{"transforms.x.type": cls})
    assert msg.startswith("transforms.x.type:") and cls in msg


def test_unimplemented_predicate_refused() -> None:
    msg = refused(
        transforms="f",
        predicates="p",
        **{
            "transforms.f.type": T + "Filter",
            "transforms.f.predicate": "p",
            "predicates.p.type": "com.example.Pred",
        },
    )
    assert msg.startswith("predicates.p.type:") and "com.example.Pred" in msg


@pytest.mark.parametrize(
    ("extra", "prop"),
    [
        ({"transforms.r.type": T + "RegexRouter", "transforms.r.replacement": "y"}, "transforms.r.regex"),
        (
            {
                "transforms.r.type": T + "RegexRouter",
                "transforms.r.regex": "(",
                "transforms.r.replacement": "y",
            },
            "transforms.r.regex",
        ),
        (
            {
                "transforms.r.type": "io.debezium.transforms.ExtractNewRecordState",
                "transforms.r.delete.tombstone.handling.mode": "bogus",
            },
            "transforms.r.delete.tombstone.handling.mode",
        ),
        (
            {"transforms.r.type": T + "ReplaceField$Value", "transforms.r.renames": "a:b:c"},
            "transforms.r.renames",
        ),
        ({"transforms.r.type": T + "InsertField$Value"}, "transforms.r.topic.field"),
        (
            {"transforms.r.type": T + "InsertField$Value", "transforms.r.static.field": "s"},
            "transforms.r.static.value",
        ),
        ({"transforms.r.type": T + "Cast$Value", "transforms.r.spec": "a:bytes"}, "transforms.r.spec"),
        ({"transforms.r.type": T + "ValueToKey"}, "transforms.r.fields"),
        ({"transforms.r.type": T + "Filter", "transforms.r.predicate": "nope"}, "transforms.r.predicate"),
        ({"transforms.r.type": T + "Filter", "transforms.r.negate": "true"}, "transforms.r.negate"),
        ({"transforms.r.type": T + "Filter", "transforms.r.negate": "maybe"}, "transforms.r.negate"),
        (
            {
                "transforms.r.type": "io.debezium.transforms.outbox.EventRouter",
                "transforms.r.table.expand.json.payload": "true",
                "transforms.r.field.name.adjustment.mode": "avro_x",
            },
            "transforms.r.field.name.adjustment.mode",
        ),
        (
            {
                "transforms.r.type": "io.debezium.transforms.partitions.PartitionRouting",
                "transforms.r.partition.payload.fields": "after.id",
            },
            "transforms.r.partition.topic.num",
        ),
        (
            {
                "transforms.r.type": "io.debezium.transforms.ByLogicalTableRouter",
                "transforms.r.topic.regex": "a",
                "transforms.r.topic.replacement": "b",
                "transforms.r.key.field.regex": "x",
            },
            "transforms.r.key.field.replacement",
        ),
        (
            {
                "transforms.r.type": T + "InsertHeader",
                "transforms.r.header": "h",
                "transforms.r.value.literal": "1.5e3",
            },
            "transforms.r.value.literal",
        ),
    ],
)
def test_bad_option_names_the_property(extra: dict, prop: str) -> None:
    msg = refused(transforms="r", **extra)
    assert msg.startswith(prop + ":"), msg


def test_cli_exits_2_with_one_line(tmp_path: Path) -> None:
    conf = tmp_path / "c.properties"
    write_properties(
        {
            **BASE,
            "database.port": "1",
            "transforms": "cbr",
            "transforms.cbr.type": "io.debezium.transforms.ContentBasedRouter",
            "transforms.cbr.language": "jsr223.groovy",
        },
        conf,
    )
    r = subprocess.run(
        [sys.executable, "-m", "emulator", "run", str(conf), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "transforms.cbr.type" in lines[0] and "ContentBasedRouter" in lines[0]


# ------------------------------------------------------------------------------------ errors.tolerance


def _orders_2025_only(pg: PgServer, tmp: Path, extra: dict) -> EmulatorProcess:
    load = sections_of(DATA / "pg_connect.sql")
    pg.psql(load["pre"])
    props = {
        **BASE,
        "database.port": str(pg.port),
        "table.include.list": "public.orders_2025",
        "slot.name": "debezium",
        "publication.name": "dbz_publication",
        **extra,
    }
    return EmulatorProcess(props, tmp).start()


def test_tolerance_none_stops_the_task_with_the_transform_error(tmp_path: Path) -> None:
    """TimestampRouter on Debezium's records: their timestamp is null, so every record fails with
    'Timestamp missing on record' (what real Debezium raised on this chain, see README of the data)."""
    with PgServer() as pg:
        emu = _orders_2025_only(
            pg, tmp_path, {"transforms": "ts", "transforms.ts.type": T + "TimestampRouter"}
        )
        deadline = time.monotonic() + 90
        while emu.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        code = emu.stop()
    assert code == 1
    log = emu.log_tail(5)
    assert "transforms.ts (org.apache.kafka.connect.transforms.TimestampRouter)" in log
    assert "Timestamp missing on record" in log
    assert emu.records() == []


def test_tolerance_all_skips_the_failing_records(tmp_path: Path) -> None:
    """The pg_unwrap_route chain with MaskField no longer behind the not-a-tombstone predicate: on the
    tombstone MaskField fails (as Connect's: 'Only Map objects supported in absence of schema'), with
    errors.tolerance=all that record is skipped and everything else is what Debezium wrote."""
    meta = json.loads((DATA / "pg_unwrap_route.meta.json").read_text())
    cfg = meta["connector_config"]
    del cfg["transforms.mask.predicate"], cfg["transforms.mask.negate"]
    cfg["errors.tolerance"] = "all"
    cfg["errors.log.enable"] = "true"
    out = replay_pg(meta, tmp_path)
    expected = tmp_path / "expected.jsonl"
    lines = [ln for ln in (DATA / "pg_unwrap_route.jsonl").read_text().splitlines() if ln.strip()]
    kept = [ln for ln in lines if json.loads(ln)["value"] is not None]
    assert len(kept) == len(lines) - 1
    expected.write_text("\n".join(kept) + "\n")
    n, problems = compare(expected, out)
    assert n == len(kept) and not problems, problems
    assert (
        "Only Map objects supported in absence of schema for [mask fields], found: null"
        in (tmp_path / "emulator.log").read_text()
    )


@pytest.mark.parametrize("form", ["connect-json", "debezium-server"])
def test_other_config_forms_give_the_same_records(form: str, tmp_path: Path) -> None:
    """pg_kafka_chain (transforms with predicates and negate) as a Connect JSON and as a Debezium Server
    application.properties (`debezium.transforms.*`, `debezium.predicates.*`, `debezium.format.*`)."""
    meta = json.loads((DATA / "pg_kafka_chain.meta.json").read_text())
    out = replay_pg(meta, tmp_path, form)
    n, problems = compare(DATA / "pg_kafka_chain.jsonl", out)
    assert n == meta["records"] and not problems, problems


def test_in_process_capture_applies_the_chain() -> None:
    """The in-process API goes through the same Engine.emit: unwrap + RegexRouter. Expected shapes as
    Connect builds them (cf. the pg_predicates_legacy recording): ExtractNewRecordState always rebuilds the
    value schema with copySchemaBasics, so the unwrapped value is a required struct with the table's name."""
    from emulator.api import Capture

    with PgServer() as pg:
        pg.psql(
            "CREATE TABLE public.orders (id int PRIMARY KEY, item text NOT NULL);"
            "INSERT INTO public.orders VALUES (1, 'seed');"
        )
        props = pg.connector_properties(
            **{
                "topic.prefix": "inproc",
                "slot.name": "inproc",
                "publication.name": "inproc_pub",
                "transforms": "unwrap,route",
                "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
                "transforms.route.type": T + "RegexRouter",
                "transforms.route.regex": r"inproc\.public\.(.*)",
                "transforms.route.replacement": "cdc.$1",
            }
        )
        with Capture(props) as cap:
            rec = cap.wait_for("cdc.orders", timeout=60)
            pg.psql("DELETE FROM public.orders WHERE id = 1;")
            tomb = cap.wait_for("cdc.orders", lambda r: r["value"]["payload"] is None, timeout=60)
    assert rec["key"] == {
        "schema": {
            "type": "struct",
            "fields": [{"type": "int32", "optional": False, "field": "id"}],
            "optional": False,
            "name": "inproc.public.orders.Key",
        },
        "payload": {"id": 1},
    }
    assert rec["value"] == {
        "schema": {
            "type": "struct",
            "fields": [
                {"type": "int32", "optional": False, "field": "id"},
                {"type": "string", "optional": False, "field": "item"},
            ],
            "optional": False,
            "name": "inproc.public.orders.Value",
        },
        "payload": {"id": 1, "item": "seed"},
    }
    # delete.tombstone.handling.mode=tombstone (default): the delete becomes the after (null) with the
    # Value schema, printed by JsonConverter as {"schema": ..., "payload": null}; the real tombstone is dropped
    assert tomb["key"]["payload"] == {"id": 1}
    assert tomb["value"] == {
        "schema": {
            "type": "struct",
            "fields": [
                {"type": "int32", "optional": False, "field": "id"},
                {"type": "string", "optional": False, "field": "item"},
            ],
            "optional": True,
            "name": "inproc.public.orders.Value",
        },
        "payload": None,
    }


def test_converter_failure_stops_the_task_where_connect_stopped(tmp_path: Path) -> None:
    """ExtractField$Value after.ratio.scale (V2 path) on products: the third snapshot row has no ratio, the
    extracted value is null for a required int32, and JsonConverter fails ('Conversion error: null value
    for field that is required and has no default value'). Real Debezium stopped after two records
    (pg_extract_v2_fail); with errors.tolerance=none the emulator stops there too, exit code 1."""
    meta = json.loads((DATA / "pg_extract_v2_fail.meta.json").read_text())
    assert meta["engine_error"] and meta["records"] == 2
    load = sections_of(DATA / meta["workload"])
    with PgServer() as pg:
        pg.psql(load["pre"])
        props = dict(
            meta["connector_config"], **{"database.hostname": "127.0.0.1", "database.port": str(pg.port)}
        )
        props.pop("offset.storage", None)
        emu = EmulatorProcess(props, tmp_path).start()
        deadline = time.monotonic() + 90
        while emu.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        code = emu.stop()
    assert code == 1
    assert "null value for field that is required and has no default value" in emu.log_tail(5)
    n, problems = compare(DATA / "pg_extract_v2_fail.jsonl", emu.out)
    assert n == 2 and not problems, problems


def test_rest_worker_refuses_a_bad_transform_at_creation(tmp_path: Path) -> None:
    """Connect's REST API answers 400 for an invalid SMT configuration instead of creating the connector."""
    from emulator.worker import HttpError, Worker

    w = Worker(tmp_path / "state")
    config = {
        **BASE,
        "database.port": "5432",
        "transforms": "r",
        "transforms.r.type": T + "RegexRouter",
        "transforms.r.regex": "(",
        "transforms.r.replacement": "x",
    }
    with pytest.raises(HttpError) as e:
        w.validate("bad", config)
    assert e.value.code == 400 and "transforms.r.regex" in e.value.message


# ------------------------------------------------------------------- headers: which converter (issue 15)

# the header of every record as the two default header converters print it: JsonConverter with schemas (the
# embedded engine's default; tests/data/pg/pg_public.jsonl) and SimpleHeaderConverter (Kafka Connect's
# default; the connect recordings hold it as {"b64": base64("dbserver1")})
_HEADER_JSON = b'{"schema":{"type":"string","optional":false},"payload":"dbserver1"}'
_HEADER_SIMPLE_LINE = b'{"b64":"ZGJzZXJ2ZXIx"}'
_KEY = b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"k"},"payload":{"id":1}}'


def _header_in_line(plane) -> bytes:
    from emulator.records import Record

    rec = Record(
        "dbserver1.public.t", _KEY, None, [("__debezium.context.connectorLogicalName", _HEADER_JSON)]
    )
    line = plane.apply(rec).line()
    start = line.index(b'"__debezium.context.connectorLogicalName",') + len(
        b'"__debezium.context.connectorLogicalName",'
    )
    return line[start : line.index(b"]]", start)]


def test_no_header_converter_named_directory_keeps_json_headers_with_transforms() -> None:
    """Before issue 15 a transform switched the directory output's headers to SimpleHeaderConverter bytes;
    with none named they are the embedded engine's JsonConverter form, transforms or not."""
    plane = build(
        **{
            "transforms": "r",
            "transforms.r.type": T + "RegexRouter",
            "transforms.r.regex": "x",
            "transforms.r.replacement": "y",
        }
    )
    assert _header_in_line(plane) == _HEADER_JSON


def test_named_simple_header_converter_is_honoured_without_transforms() -> None:
    """header.converter=SimpleHeaderConverter named: its bytes, also with no transform (the directory output
    used to write JSON then)."""
    plane = build(**{"header.converter": "org.apache.kafka.connect.storage.SimpleHeaderConverter"})
    assert plane is not None
    assert _header_in_line(plane) == _HEADER_SIMPLE_LINE
    assert build() is None  # nothing named, nothing else: still no stage at all


def test_a_failing_stage_names_the_topic_it_was_given() -> None:
    """A transform after a router fails on the routed record: the one line names the routed topic, the topic of
    the record the stage was given (Connect's error reporter prints that stage's input record), not the
    connector's (closing note of session 15, "Left")."""
    from emulator.records import Record

    plane = build(
        **{
            "transforms": "r,x",
            "transforms.r.type": T + "RegexRouter",
            "transforms.r.regex": r"dbserver1\.public\.(.*)",
            "transforms.r.replacement": "routed_$1",
            "transforms.x.type": T + "ExtractField$Value",
            "transforms.x.field": "missing",
        }
    )
    value = b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"v"},"payload":{"id":1}}'
    with pytest.raises(dataplane.DataPlaneError) as e:
        plane.apply(Record("dbserver1.public.t", _KEY, value, []))
    assert "transforms.x (" in str(e.value) and "of topic routed_t:" in str(e.value), str(e.value)


@pytest.mark.parametrize(
    ("field", "message"),
    [
        # what Debezium 3.6.3's task failed with (connect seed 84 trial 37; differential_connect diff with
        # route.by.field=id on pg_types_connect.sql): Kafka's Struct.getString
        ("c1", "c1 is not a valid field name"),
        ("id", "Field 'id' is not of type STRING"),
    ],
)
def test_unwrap_route_by_field_reads_struct_get_string(field: str, message: str) -> None:
    from emulator.records import Record

    plane = build(
        **{
            "transforms": "u",
            "transforms.u.type": "io.debezium.transforms.ExtractNewRecordState",
            "transforms.u.route.by.field": field,
        }
    )
    row = {"type": "struct", "optional": True, "name": "V"}
    row["fields"] = [{"type": "int32", "optional": False, "field": "id"}]
    fields = [
        {**row, "field": "before"},
        {**row, "field": "after"},
        {"type": "struct", "fields": [], "optional": False, "name": "S", "field": "source"},
        {"type": "string", "optional": False, "field": "op"},
    ]
    schema = {"type": "struct", "fields": fields, "optional": False, "name": "x.Envelope"}
    payload = {"before": None, "after": {"id": 1}, "source": {}, "op": "c"}
    value = json.dumps({"schema": schema, "payload": payload})
    with pytest.raises(dataplane.DataPlaneError, match=message):
        plane.apply(Record("dbserver1.public.t", _KEY, value.encode(), []))


@pytest.mark.parametrize(
    ("mode", "topic"),
    [
        # the names real Debezium 3.6.3 printed (differential_connect diff on pg_connect.sql, RegexRouter-style
        # replacement `$1orders-all`, JsonConverter; 23 records, 0 mismatches for each mode, session 18)
        ("avro", "dbserver1.public.orders_all"),
        ("avro_unicode", "dbserver1.public.orders_u002dall"),
        ("none", "dbserver1.public.orders-all"),
    ],
)
def test_logical_table_router_adjusts_the_new_schema_names(mode: str, topic: str) -> None:
    """ByLogicalTableRouter's `schema.name.adjustment.mode` (refused before session 18): the new Key, Value and
    Envelope schema names go through Debezium's SchemaNameAdjuster; the topic keeps its hyphen."""
    from emulator.records import Record

    plane = build(
        **{
            "transforms": "blt",
            "transforms.blt.type": "io.debezium.transforms.ByLogicalTableRouter",
            "transforms.blt.topic.regex": "(.*)orders_(.*)",
            "transforms.blt.topic.replacement": "$1orders-all",
            "transforms.blt.schema.name.adjustment.mode": mode,
        }
    )
    row = {"type": "struct", "optional": True, "name": "dbserver1.public.orders_2024.Value"}
    row["fields"] = [{"type": "int32", "optional": False, "field": "id"}]
    fields = [
        {**row, "field": "before"},
        {**row, "field": "after"},
        {"type": "struct", "fields": [], "optional": False, "name": "S", "field": "source"},
        {"type": "string", "optional": False, "field": "op"},
    ]
    schema = {"type": "struct", "fields": fields, "optional": False, "name": "x.Envelope"}
    payload = {"before": None, "after": {"id": 1}, "source": {}, "op": "c"}
    key = b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"dbserver1.public.orders_2024.Key"},"payload":{"id":1}}'
    value = json.dumps({"schema": schema, "payload": payload}).encode()
    out = plane.apply(Record("dbserver1.public.orders_2024", key, value, []))
    assert out.topic == "dbserver1.public.orders-all"
    k, v = json.loads(out.key), json.loads(out.value)
    assert k["schema"]["name"] == topic + ".Key"
    assert v["schema"]["name"] == topic + ".Envelope"
    assert v["schema"]["fields"][1]["name"] == topic + ".Value"


def test_read_to_insert_event_turns_snapshot_reads_into_creates() -> None:
    """Debezium's MySQL ReadToInsertEvent (3.6.3 bytecode): `op` r -> c in a new record, anything else
    untouched. Real Debezium on mariadb_connect.sql, alone and between ExtractChangedRecordState and
    ExtractNewRecordState add.headers/add.fields=op: 41 records, 0 mismatches each (differential_connect diff,
    session 18; 16 snapshot reads printed with op c)."""
    from emulator.records import Record

    plane = build(
        **{
            "transforms": "r2i",
            "transforms.r2i.type": "io.debezium.connector.mysql.transforms.ReadToInsertEvent",
        }
    )
    row = {"type": "struct", "optional": True, "name": "V"}
    row["fields"] = [{"type": "int32", "optional": False, "field": "id"}]
    fields = [
        {**row, "field": "before"},
        {**row, "field": "after"},
        {"type": "string", "optional": False, "field": "op"},
    ]
    schema = {"type": "struct", "fields": fields, "optional": False, "name": "x.Envelope"}

    def op_after(op: str) -> str:
        payload = {"before": None, "after": {"id": 1}, "op": op}
        value = json.dumps({"schema": schema, "payload": payload}).encode()
        return json.loads(plane.apply(Record("dbserver1.inventory.t", _KEY, value, [])).value)["payload"][
            "op"
        ]

    assert [op_after(op) for op in ("r", "c", "u", "d")] == ["c", "c", "u", "d"]


@pytest.mark.parametrize("fmt", ["BASE64", "NUMERIC"])
def test_mask_field_default_decimal_is_big_decimal_zero(fmt: str) -> None:
    """MaskField's default mask for a Decimal is BigDecimal.ZERO, scale 0 (connect-transforms 4.3.0), whatever
    the schema's scale: the JsonConverter prints it `0` with NUMERIC decimals and fails the record with BASE64
    (Decimal.fromLogical's scale check). Real Debezium on pg_more_connect.sql (price NUMERIC(20,6) masked behind
    ExtractNewRecordState): 13 records with NUMERIC, 10 with BASE64 (the priced rows skipped under
    errors.tolerance=all), 0 mismatches each after the fix (differential_connect diff, session 18)."""
    from emulator.records import Record

    plane = build(
        **{
            "transforms": "m",
            "transforms.m.type": T + "MaskField$Value",
            "transforms.m.fields": "price",
            "value.converter.decimal.format": fmt,
        }
    )
    dec = {"type": "bytes", "optional": True, "name": "org.apache.kafka.connect.data.Decimal", "version": 1}
    dec["parameters"] = {"scale": "6", "connect.decimal.precision": "20"}
    fields = [{"type": "int32", "optional": False, "field": "id"}, {**dec, "field": "price"}]
    schema = {"type": "struct", "fields": fields, "optional": False, "name": "V"}
    value = json.dumps({"schema": schema, "payload": {"id": 1, "price": "AW4z"}}).encode()
    if fmt == "NUMERIC":
        out = plane.apply(Record("dbserver1.public.t", _KEY, value, []))
        assert json.loads(out.value)["payload"] == {"id": 1, "price": 0}
        assert b'"price":0}' in out.value
    else:
        with pytest.raises(dataplane.DataPlaneError, match="mismatching scale"):
            plane.apply(Record("dbserver1.public.t", _KEY, value, []))


@pytest.mark.parametrize(
    ("literal", "schema_type", "text"),
    [
        # Java's Float.toString of the values Debezium wrote (cases mariadb_insert_header_decimals_*, session 19)
        ("1.5", "float", "1.5"),
        ("0.1", "float", "0.1"),
        ("-2.50", "float", "-2.5"),
        ("16777217.5", "float", "1.6777218E7"),  # the nearest float32, ties to even
        ("123456789012345678.9", "float", "1.23456791E17"),
        ("0.000001", "float", "1.0E-6"),
        ("1.0", "int8", "1"),  # a whole decimal is typed as its integer
        ("-0.0", "int8", "0"),
    ],
)
def test_decimal_literals_are_typed_as_values_parse_string_types_them(
    literal: str, schema_type: str, text: str
) -> None:
    schema, value = parse_literal(Options("transforms.h.", {}), "value.literal", literal)
    assert schema.type == schema_type
    assert (float_text(value) if schema_type == "float" else str(value)) == text
