"""The fused data-plane paths (emulator/connect/fused.py) give the bytes of the general path, record for record.

The general path (`DataPlane.apply`: the record model, the transform stage, the converters) is the one the
connect goldens check against real Debezium 3.6.3 (tests/test_connect_goldens.py,
tests/test_connect_converters.py). The fused paths skip it for the commonest chains; here both run on the
same records — what the PostgreSQL connector hands the data plane for the connect goldens' workloads
(`pg_connect.sql`, `pg_more_connect.sql`: every column type they hold, snapshot reads, creates, updates,
deletes, tombstones, transactions, TOAST, keyless tables) plus a bulk of the campaign's typed table
(NULLs, defaults, numerics, temporals, arrays) — captured once from a throwaway server, then replayed through
a fused plane and a general one with registries of their own (so a different registration order shows as
different schema ids). More than 5,000 records take the fused way in each chain.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from emulator.config import from_dict
from emulator.connect import dataplane
from emulator.connect import fused as fused_paths
from emulator.connect.dataplane import DataPlane
from emulator.envelope import StructuredTableEnvelope
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.memory import CallbackOutput
from emulator.records import StructuredRecord
from emulator.runner import Runner
from emulator.testing.oracle_connect import sections_of
from emulator.testing.pgserver import PgServer

DATA = Path(__file__).parent / "data" / "connect"
SLOT = "fused_paths"

# a bulk of the campaign's typed table `events` (pg_more_connect.sql): NULLs and defaults in turn
_ROWS = """
SELECT g, (ARRAY['sad','ok','happy'])[1 + g % 3]::mood,
  CASE WHEN g % 5 = 0 THEN NULL ELSE 'body ' || g END,
  CASE WHEN g % 7 = 0 THEN NULL ELSE g * 1.000001 END,
  CASE WHEN g % 4 = 0 THEN NULL ELSE g::numeric / 7 END,
  CASE WHEN g % 6 = 0 THEN NULL ELSE g % 99999 END,
  CASE WHEN g % 3 = 0 THEN NULL ELSE '2024-01-01 00:00:00+00'::timestamptz + g * interval '1.5 second' END,
  '2000-02-29 12:00:00'::timestamp + g * interval '1 minute',
  DATE '1969-12-31' + g,
  TIME '00:00:00' + g * interval '1.000001 second',
  CASE WHEN g % 2 = 0 THEN NULL ELSE md5(g::text)::uuid END,
  CASE WHEN g % 8 = 0 THEN NULL ELSE jsonb_build_object('g', g, 'l', jsonb_build_array(g, NULL)) END,
  CASE WHEN g % 9 = 0 THEN NULL ELSE ARRAY[g, NULL, -g] END,
  ARRAY['w' || (g % 10)]::varchar(8)[],
  CASE WHEN g % 10 = 0 THEN NULL ELSE g / 3.0 END
FROM generate_series({lo}, {hi}) g;
"""
BULK_PRE = "INSERT INTO events " + _ROWS.format(lo=100, hi=1599)
BULK_STREAM = (
    "INSERT INTO events "
    + _ROWS.format(lo=2000, hi=4999)
    + "UPDATE events SET price = price + 1, body = NULL, fl = NULL WHERE id BETWEEN 2000 AND 2999;\n"
    + "DELETE FROM events WHERE id BETWEEN 3000 AND 3499;\n"
    + "UPDATE events SET id = id + 100000 WHERE id BETWEEN 4000 AND 4009;\n"  # key changes: extra headers
    + "INSERT INTO logs SELECT 'm' || g, g FROM generate_series(1, 300) g;\n"
    + "INSERT INTO logs VALUES ('the end', -1);\n"
)

UNWRAP = {"transforms": "unwrap", "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState"}
AVRO_KEY = {
    "key.converter": "io.confluent.connect.avro.AvroConverter",
    "key.converter.schema.registry.url": "mock://{scope}",
}
AVRO_VALUE = {
    "value.converter": "io.confluent.connect.avro.AvroConverter",
    "value.converter.schema.registry.url": "mock://{scope}",
}
BASE = {  # what the data plane's configuration is read with (no server is reached by the replay)
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "database.hostname": "127.0.0.1",
    "database.user": "postgres",
    "database.dbname": "postgres",
    "plugin.name": "pgoutput",
    "topic.prefix": "dbserver1",
}
REWRITE = {"transforms.unwrap.delete.tombstone.handling.mode": "rewrite"}
SIMPLE_HEADERS = {"header.converter": "org.apache.kafka.connect.storage.SimpleHeaderConverter"}
# chain -> (its properties, the fused path it must take)
CHAINS = {
    "unwrap_json_schemaless": (
        {**UNWRAP, "key.converter.schemas.enable": "false", "value.converter.schemas.enable": "false"},
        "plain_unwrap",
    ),
    "unwrap_json_schemas_simple_headers": ({**UNWRAP, **SIMPLE_HEADERS}, "plain_unwrap"),
    "unwrap_json_nulls_kept": (
        {**UNWRAP, "value.converter.replace.null.with.default": "false"},
        "plain_unwrap",
    ),
    "unwrap_avro": ({**UNWRAP, **AVRO_KEY, **AVRO_VALUE}, "plain_unwrap"),
    "unwrap_json_key_avro_value": ({**UNWRAP, **AVRO_VALUE}, "plain_unwrap"),
    "unwrap_avro_string_headers": (
        {
            **UNWRAP,
            **AVRO_KEY,
            **AVRO_VALUE,
            "header.converter": "org.apache.kafka.connect.storage.StringConverter",
        },
        "plain_unwrap",
    ),
    # ExtractNewRecordState with add.fields / a rewrite mode (fused.unwrap_fields)
    "unwrap_rewrite_fields_avro": (
        {
            **UNWRAP,
            **AVRO_KEY,
            **AVRO_VALUE,
            **REWRITE,
            "transforms.unwrap.add.fields": "op,table,lsn,source.ts_ms",
        },
        "unwrap_fields",
    ),
    "unwrap_rewrite_fields_json": (
        {
            **UNWRAP,
            **REWRITE,
            # a missing field (not added), an alias, the snapshot marker, transaction and top-level fields
            "transforms.unwrap.add.fields": "op,db,source.snapshot,ts_ms,transaction.id,xmin,nothere,source.db:database",
        },
        "unwrap_fields",
    ),
    "unwrap_rewrite_nulls_kept_schemaless": (
        {
            **UNWRAP,
            **REWRITE,
            "transforms.unwrap.replace.null.with.default": "false",
            "transforms.unwrap.add.fields": "snapshot,total_order",
            "transforms.unwrap.add.fields.prefix": "meta_",
            "value.converter.schemas.enable": "false",
            "value.converter.replace.null.with.default": "false",
        },
        "unwrap_fields",
    ),
    # the transform fills a null column's default (InsertField's copy), the converter would not
    "unwrap_rewrite_defaults_filled_nulls_kept": (
        {**UNWRAP, **REWRITE, "value.converter.replace.null.with.default": "false"},
        "unwrap_fields",
    ),
    "unwrap_fields_no_rewrite_json_key_avro_value": (
        {**UNWRAP, **AVRO_VALUE, "transforms.unwrap.add.fields": "op,source.lsn,txId"},
        "unwrap_fields",
    ),
    "unwrap_rewrite_with_tombstone_avro": (
        {
            **UNWRAP,
            **AVRO_KEY,
            **AVRO_VALUE,
            "transforms.unwrap.delete.tombstone.handling.mode": "rewrite-with-tombstone",
        },
        "unwrap_fields",
    ),
    "avro": ({**AVRO_KEY, **AVRO_VALUE}, "plain_avro"),
    "avro_simple_headers": ({**AVRO_KEY, **AVRO_VALUE, **SIMPLE_HEADERS}, "plain_avro"),
}


def _slot_active(pg: PgServer) -> bool:
    with pg.connect() as c:
        row = c.execute("SELECT active FROM pg_replication_slots WHERE slot_name = %s", (SLOT,)).fetchone()
    return bool(row and row[0])


def _the_end(record) -> bool:
    value = record.value_payload if record.__class__ is StructuredRecord else None
    return bool(value) and (value.get("after") or {}).get("msg") == "the end"


# id(record) -> (its envelope, the arguments of the `StructuredTableEnvelope.change` call that made it)
CHANGE_CALLS: dict[int, tuple] = {}


@pytest.fixture(scope="module")
def captured() -> list:
    """What the PostgreSQL connector hands the data plane for the workload (StructuredRecords, and the
    transaction markers); the dispatcher's `env.change` calls behind them in CHANGE_CALLS."""
    workloads = [sections_of(DATA / "pg_connect.sql"), sections_of(DATA / "pg_more_connect.sql")]
    records: list = []
    change = StructuredTableEnvelope.change

    def kept_change(env, *args, **kwargs):
        record = change(env, *args, **kwargs)
        CHANGE_CALLS[id(record)] = (env, args, kwargs)
        return record

    StructuredTableEnvelope.change = kept_change
    with PgServer() as pg:
        pg.psql("".join(w["pre"] for w in workloads) + BULK_PRE)
        props = pg.connector_properties(
            **{
                "slot.name": SLOT,
                "provide.transaction.metadata": "true",
                "offset.flush.interval.ms": "0",
                **UNWRAP,
            }
        )
        config = from_dict(props)
        plane = dataplane.build(config)

        def keep(record):
            records.append(record)
            return None  # nothing reaches the output: only the records before the plane are wanted

        plane.apply = keep
        runner = Runner(config, CallbackOutput(lambda r: None), MemoryOffsetStore(), plane=plane)
        thread = threading.Thread(target=runner.run, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 120
            while not _slot_active(pg):
                assert thread.is_alive() and time.monotonic() < deadline, "the connector did not stream"
                time.sleep(0.2)
            pg.psql("".join(w["stream"] for w in workloads) + BULK_STREAM)
            while not any(_the_end(r) for r in records[-3:]):  # its END marker may follow it
                assert thread.is_alive() and time.monotonic() < deadline, f"{len(records)} records, no end"
                time.sleep(0.2)
        finally:
            runner.stop()
            thread.join(30)
            StructuredTableEnvelope.change = change
    return records


def _outcome(apply, record) -> tuple:
    try:
        out = apply(record)
    except dataplane.DataPlaneError as e:
        return ("failed", str(e))
    if out is None:
        return ("dropped",)
    # the directory line too: a fused record may write it its own way (fused.AvroRecord)
    return (out.topic, out.key, out.value, out.headers, out.partition, out.binary, out.line())


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_fused_path_gives_the_general_paths_bytes(chain: str, captured: list) -> None:
    props, path = CHAINS[chain]

    def plane(scope: str) -> DataPlane:
        p = {k: v.format(scope=f"fused-{chain}-{scope}") for k, v in props.items()}
        built = dataplane.build(from_dict({**BASE, **p}))
        assert built is not None
        return built

    fused_plane, general_plane = plane("fused"), plane("general")
    assert fused_plane.fused == path  # the chain is one a fused path takes
    handed_on = [0]  # records the fused path gave the general one (deletes, tombstones, markers...)
    general = fused_plane.general

    def counted(record):
        handed_on[0] += 1
        return general(record)

    fused_plane.general = counted
    fused = fused_plane.apply
    for i, record in enumerate(captured):
        a = _outcome(fused, record)
        b = _outcome(lambda r: DataPlane.apply(general_plane, r), record)
        assert a == b, f"record {i} of topic {record.topic}"
    assert len(captured) - handed_on[0] >= 5000  # records the fused path wrote itself


@pytest.mark.parametrize(
    "chain", ["avro", "avro_simple_headers", "unwrap_avro", "unwrap_avro_string_headers"]
)
def test_table_change_gives_the_general_paths_bytes(chain: str, captured: list, monkeypatch) -> None:
    """The dispatcher hook of fused.plain_avro and of fused.plain_unwrap into AvroConverters
    (`plane.table_change(env)`: the change's parts straight into the Avro encoders) against the general path
    on `env.change`'s record, with the clock both read fixed to the
    record's own `ts_ns`; every other record goes through the fused `apply`, in the capture's order (so the
    registries see the schemas in the same order)."""
    props, _ = CHAINS[chain]

    def plane(scope: str) -> DataPlane:
        p = {k: v.format(scope=f"change-{chain}-{scope}") for k, v in props.items()}
        built = dataplane.build(from_dict({**BASE, **p}))
        assert built is not None
        return built

    fused_plane, general_plane = plane("fused"), plane("general")
    assert fused_plane.table_change is not None
    now = [0]
    monkeypatch.setattr(fused_paths, "_time_ns", lambda: now[0])
    monkeypatch.setattr("emulator.envelope._time_ns", lambda: now[0])
    changes: dict[int, object] = {}
    made = 0
    for i, record in enumerate(captured):
        call = CHANGE_CALLS.get(id(record))
        if call is None:
            a = _outcome(fused_plane.apply, record)
        else:
            env, args, kwargs = call
            now[0] = record.value_payload["ts_ns"]
            if id(env) not in changes:
                changes[id(env)] = fused_plane.table_change(env)
            change = changes[id(env)]
            assert change is not None, f"record {i}: the hook refused the envelope of {record.topic}"
            out = change(*args, **kwargs)
            made += out.__class__ is fused_paths.AvroRecord
            a = _outcome(fused_plane.apply, out)  # as the engine hands it on
        b = _outcome(lambda r: DataPlane.apply(general_plane, r), record)
        assert a == b, f"record {i} of topic {record.topic}"
    assert made >= 5000  # records the hook wrote itself
