"""Kafka's transforms with replace.null.with.default=false read a field with `Struct.getWithoutDefault`: a NOT NULL
column the connector's converter left unset (connect/unset.py: a DATETIME past epoch nanoseconds' range under
time.precision.mode=nanoseconds) is null there, and the `Struct.put` into the transform's new struct refuses it.

tests/data/connect/failures/unset_raw.json holds what Debezium 3.6.3 printed for eight transforms (and HeaderFrom's
copy, which ConnectHeaders.add refuses) (session 24,
diffcamp34, `differential_connect diff` on mariadb_unset_required.sql: ExtractField$Value `after`, then the
transform, errors.tolerance=none; the emulator's words matched in each run); the records themselves are the connect
cases mariadb_unset_required_raw_replace / _raw_cast (tests/test_connect_goldens.py). Before, the emulator wrote
the default where Debezium failed the record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms import REGISTRY, load_families
from emulator.connect.transforms.base import Options, TransformError
from emulator.testing.connect_failure import compare_failures

RECORDED = json.loads(
    (Path(__file__).parent / "data" / "connect" / "failures" / "unset_raw.json").read_text()
)
K = "org.apache.kafka.connect.transforms."
NANOS = "io.debezium.time.NanoTimestamp"


def _nanos() -> Schema:
    return Schema("int64", name=NANOS, version=1, default=0)


ROW = Schema(
    "struct",
    name="dbserver1.inventory.ur.Value",
    optional=True,
    fields=[
        Field("id", Schema("int32")),
        Field("dtz", _nanos()),
        Field("dtd", _nanos()),
        Field("n", Schema("int32", optional=True)),
    ],
)


def _record(dtz: int | None) -> ConnectRecord:
    # row 2 of the workload: dtz 9999-12-31 is past the int64 nanoseconds, so the connector left it unset
    value = {"id": 2, "dtz": dtz, "dtd": 1614834367500000000, "n": 2}
    return ConnectRecord("dbserver1.inventory.ur", None, None, None, ROW, value)


def _transform(kind: str, options: dict[str, str]):
    load_families()
    return REGISTRY[K + kind](Options("transforms.s.", options))


@pytest.mark.parametrize("kind", sorted(RECORDED))
def test_an_unset_field_read_without_its_default_fails_as_in_debezium(kind: str) -> None:
    recorded = RECORDED[kind]
    t = _transform(kind.split()[0], recorded["options"])
    with pytest.raises(TransformError) as e:
        t.apply(_record(None))
    line = (
        f"error: DataPlaneError: transforms.s ({K}{kind.split()[0]}) failed on a record of topic dbserver1.inventory.ur: "
        f"{e.value} (errors.tolerance=none)"
    )
    assert compare_failures(recorded["debezium_error"], line) is None, (
        str(e.value),
        recorded["debezium_error"],
    )


@pytest.mark.parametrize("kind", sorted(RECORDED))
def test_with_its_default_or_a_value_the_record_passes(kind: str) -> None:
    options = dict(RECORDED[kind]["options"])
    _transform(kind.split()[0], options).apply(_record(1614834367123456000))
    options["replace.null.with.default"] = "true"  # Struct.get: the schema's default is put
    _transform(kind.split()[0], options).apply(_record(None))
