"""The CloudEventsConverter's metadata sources (`metadata.source`, `opentelemetry.tracing.attributes.enable`,
`schema.data.name.source.header.enable`) and `schema.name.adjustment.mode`.

The expected values come from Debezium 3.6.3's `CloudEventsConverterConfig.metadataSource()`,
`CloudEventsConverter.fromConnectData` / `convertToCloudEventsFormat` and `RecordAndMetadataHeaderImpl`, read in
the source of debezium/debezium; the record failures below were seen with real Debezium through
`differential_connect diff` (session 17): `metadata.source=header` alone fails the first record ("Header `id`
was not provided"), tracing without a `traceparent` header fails it (a null in a required field), and so does
`traceparent` taken from the value. The recorded cases are pg_cloudevents_metadata_header and
pg_cloudevents_avro_envelope (tests/test_connect_converters.py).
"""

from __future__ import annotations

import pytest

from emulator.config import ConfigError, from_dict
from emulator.connect.converters import build
from emulator.connect.converters.cloudevents_meta import GENERATE, HEADER, VALUE, parse
from emulator.connect.converters.errors import ConversionError
from emulator.connect.converters.json_converter import JsonConverter
from emulator.connect.schema import Field, Schema

PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "database.hostname": "localhost",
    "database.user": "u",
    "database.dbname": "d",
    "topic.prefix": "dbserver1",
    "plugin.name": "pgoutput",
    "value.converter": "io.debezium.converters.CloudEventsConverter",
}
N = "value.converter.metadata.source"


def _struct(name, *fields, optional=False):
    return Schema("struct", name=name, optional=optional, fields=[Field(n, s) for n, s in fields])


SOURCE = _struct(
    "io.debezium.connector.postgresql.Source",
    ("version", Schema("string")),
    ("connector", Schema("string")),
    ("name", Schema("string")),
    ("ts_ms", Schema("int64")),
    ("db", Schema("string")),
    ("txId", Schema("int64", optional=True)),
    ("lsn", Schema("int64", optional=True)),
)
ROW = _struct("dbserver1.public.t.Value", ("id", Schema("int32")), optional=True)
ENVELOPE = _struct(
    "dbserver1.public.t.Envelope",
    ("before", ROW),
    ("after", ROW),
    ("source", SOURCE),
    ("op", Schema("string")),
)
SRC = {"version": "3.6.3.Final", "connector": "postgresql", "name": "dbserver1", "ts_ms": 0, "db": "d"}
VALUE_ = {"before": None, "after": {"id": 1}, "source": {**SRC, "txId": 7, "lsn": 9}, "op": "c"}


def _converter(**opts):
    props = {**PG, **{f"value.converter.{k}": v for k, v in opts.items()}}
    return build(from_dict(props)).value


def _headers(**values):
    """Headers as Connect hands them to the value converter: JsonConverter (schemas) bytes."""
    conv = JsonConverter()
    schemas = {"source": SOURCE, "op": Schema("string")}
    return [
        (n, conv.from_connect_header("t", n, schemas.get(n, Schema("string")), v)) for n, v in values.items()
    ]


def test_metadata_source_default_reads_the_value():
    assert parse(N, None, False, False).base
    assert parse(
        N, "value,id:generate,type:generate,traceparent:header,dataSchemaName:generate", False, False
    ).base


@pytest.mark.parametrize(
    ("text", "tracing", "from_header", "expected"),
    [
        # the global source stands for every field not named; traceparent / dataSchemaName from a header only with
        # their enabling options (Debezium's backward compatibility), else generated
        ("header", False, False, (HEADER, HEADER, HEADER, GENERATE, GENERATE)),
        ("header", True, True, (HEADER, HEADER, HEADER, HEADER, HEADER)),
        (" HEADER , id : header", False, False, None),  # "id " is no field name (not trimmed)
        # `value` for a field: the record value's (no id, type or traceparent there; dataSchemaName generated)
        ("value", False, False, (VALUE, VALUE, VALUE, VALUE, VALUE)),
        ("value,id:header,type:GENERATE", True, False, (VALUE, HEADER, GENERATE, VALUE, VALUE)),
        ("value,dataSchemaName:header", False, True, (VALUE, VALUE, VALUE, VALUE, HEADER)),
        ("", False, False, None),
        ("generate", False, False, None),  # the global source is value or header
        ("value,id:value", False, False, None),  # a field's source is generate or header
        ("value,id:nowhere", False, False, None),
        ("value,id", False, False, None),
        ("value,subject:header", False, False, None),  # only id, type, traceparent, dataSchemaName
        ("value,Id:header", False, False, None),  # case-sensitive
    ],
)
def test_metadata_source_parsing(text, tracing, from_header, expected):
    if expected is None:
        with pytest.raises(ConfigError) as info:
            parse(N, text, tracing, from_header)
        assert info.value.property == N
        return
    m = parse(N, text, tracing, from_header)
    assert (m.global_, m.id, m.type, m.traceparent, m.data_schema_name) == expected


def test_bad_options_stop_the_start():
    for opts in (
        {"metadata.source": "header,type:value"},
        {"schema.name.adjustment.mode": "avro_ascii"},
        {"opentelemetry.tracing.attributes.enable": "yes"},
    ):
        with pytest.raises(ConfigError):
            _converter(**opts)
    for mode in ("none", "avro", "Avro_Unicode"):  # the envelope's schema name: JSON never prints it
        _converter(**{"schema.name.adjustment.mode": mode})


def test_generated_fields_without_headers():
    conv = _converter(**{"extension.attributes.enable": "false"})
    out = conv.from_connect_data("t", None, ENVELOPE, VALUE_)
    assert out.startswith(
        b'{"id":"name:dbserver1;lsn:9;txId:7;sequence:null","source":"/debezium/postgresql/'
    )


@pytest.mark.parametrize(
    ("opts", "message"),
    [
        # RecordAndMetadataBaseImpl.id(): null, which the CloudEvents struct refuses
        ({"metadata.source": "value"}, 'null used for required field: "id"'),
        ({"metadata.source": "value,id:header,type:generate"}, "Header `id` was not provided"),
        ({"opentelemetry.tracing.attributes.enable": "true"}, 'null used for required field: "traceparent"'),
        (
            {
                "opentelemetry.tracing.attributes.enable": "true",
                "metadata.source": "value,id:generate,type:generate",
            },
            "can only be obtained from a record header",
        ),
        (
            {
                "schema.data.name.source.header.enable": "true",
                "metadata.source": "value,dataSchemaName:header",
            },
            # (Debezium reads the JSON data's name after the id, Avro data's before it: the same record fails)
            'null used for required field: "id"|Header `dataSchemaName` was not provided',
        ),
    ],
)
def test_records_debezium_fails(opts, message):
    with pytest.raises(ConversionError, match=message):
        _converter(**opts).from_connect_data("t", [], ENVELOPE, VALUE_)


def test_header_fields():
    conv = _converter(
        **{
            "metadata.source": "value,id:header,type:header,traceparent:header,dataSchemaName:header",
            "schema.data.name.source.header.enable": "true",
            "opentelemetry.tracing.attributes.enable": "true",
            "extension.attributes.enable": "false",
            "json.schemas.enable": "false",
        }
    )
    hs = _headers(id="e1", type="T", traceparent="tp", dataSchemaName="x.D")
    assert conv.from_connect_data("t", hs, ENVELOPE, VALUE_) == (
        b'{"id":"e1","source":"/debezium/postgresql/dbserver1","specversion":"1.0","type":"T",'
        b'"time":"1970-01-01T00:00:00.000Z","datacontenttype":"application/json","traceparent":"tp",'
        b'"data":{"before":null,"after":{"id":1}}}'
    )
    # the last header of a name counts; a header that is not JsonConverter-with-schemas text fails the record
    assert b'"id":"e2"' in conv.from_connect_data("t", hs + _headers(id="e2"), ENVELOPE, VALUE_)
    with pytest.raises(ConversionError):
        conv.from_connect_data("t", [*hs, ("id", b"e3")], ENVELOPE, VALUE_)
    with pytest.raises(ConversionError):  # a number where Debezium casts to String
        conv.from_connect_data(
            "t", [*hs, ("id", b'{"schema":{"type":"int32","optional":false},"payload":3}')], ENVELOPE, VALUE_
        )


def test_header_mode():
    """metadata.source=header: source, op (and transaction) from headers, `data` the whole value (read with
    Struct.get: a null field takes its default); a record without `source` and `op` headers is null."""
    conv = _converter(
        **{"metadata.source": "header,id:generate,type:generate", "json.schemas.enable": "false"}
    )
    row = _struct("r", ("id", Schema("int32")), ("n", Schema("int32", optional=True, default=5)))
    hs = _headers(source={**SRC, "txId": 7, "lsn": 9}, op="u")
    out = conv.from_connect_data("t", hs, row, {"id": 1, "n": None})
    assert out.startswith(b'{"id":"name:dbserver1;lsn:9;txId:7;sequence:null",')
    assert b'"iodebeziumop":"u","iodebeziumversion":"3.6.3.Final"' in out
    assert b'"iodebeziumtxid":null' in out
    assert out.endswith(b'"data":{"id":1,"n":5}}')
    assert conv.from_connect_data("t", hs[:1], row, {"id": 1, "n": None}) is None
    assert conv.from_connect_data("t", None, row, {"id": 1, "n": None}) is None
    with pytest.raises(ConversionError):  # the source header is no struct
        text = JsonConverter().from_connect_header("t", "source", Schema("string"), "x")
        conv.from_connect_data("t", [("source", text), *hs[1:]], row, {"id": 1, "n": None})


def test_avro_envelope():
    """serializer.type=avro: the data's Avro record under `<topic>-data`, then the event as an Avro record named
    `<server>.<db>.CloudEvents.Envelope` under `<topic>`, `data` its bytes; source attributes keep their optionality
    (the recording: pg_cloudevents_avro_envelope). JSON data inside an Avro event stops the start."""
    from emulator.connect.converters.registry import mock_scope

    opts = {
        "serializer.type": "avro",
        "data.serializer.type": "avro",
        "avro.schema.registry.url": "mock://ce-avro",
    }
    raw = _converter(**opts).from_connect_data("t", None, ENVELOPE, VALUE_)
    reg = mock_scope("ce-avro").dump()
    assert sorted(reg) == ["t-data-value", "t-value"]
    assert raw[:5] == b"\x00" + reg["t-value"][0]["id"].to_bytes(4, "big")
    envelope = reg["t-value"][0]["schema"]
    assert (envelope["name"], envelope["namespace"]) == ("Envelope", "dbserver1.d.CloudEvents")
    fields = {f["name"]: f["type"] for f in envelope["fields"]}
    assert list(fields)[:8] == [
        "id",
        "source",
        "specversion",
        "type",
        "time",
        "datacontenttype",
        "dataschema",
        "iodebeziumop",
    ]
    assert fields["iodebeziumtsms"] == "string" and fields["iodebeziumlsn"] == ["null", "string"]
    assert fields["iodebeziumtxtotalorder"] == ["null", "string"] and fields["data"] == "bytes"
    with pytest.raises(ConfigError):
        _converter(**{**opts, "data.serializer.type": "json"})


def test_avro_data_is_registered_before_the_metadata_fails():
    """Debezium writes Avro data (registering its schema) before it reads `id`, `type`, `op`: with
    metadata.source=header and no `id` header the record fails after the data's subject is registered (connect
    seed 90 trial 1: Debezium's registry held `<topic>-value` of the `Data` record although every change event
    failed, skipped under errors.tolerance=all: the recording mariadb_cloudevents_header_no_id)."""
    import json
    from pathlib import Path

    from emulator.connect.converters.registry import mock_scope

    data = Path(__file__).parent / "data" / "connect"
    recorded = json.loads((data / "mariadb_cloudevents_header_no_id.registry.json").read_text())
    assert {(v[0]["schema"]["namespace"], v[0]["schema"]["name"]) for v in recorded.values()} == {
        ("io.debezium.connector.mysql", "Data")
    }
    assert all(s.endswith("-value") for s in recorded)
    conv = _converter(
        **{
            "metadata.source": "header",
            "data.serializer.type": "avro",
            "avro.schema.registry.url": "mock://ce-order",
        }
    )
    row = _struct("r", ("id", Schema("int32")))
    with pytest.raises(ConversionError, match="Header `id` was not provided"):
        conv.from_connect_data("t", _headers(source=SRC, op="c"), row, {"id": 1})
    reg = mock_scope("ce-order").dump()
    assert list(reg) == ["t-value"]
    assert reg["t-value"][0]["schema"]["name"] == "Data"


def test_json_prefixed_options_reach_the_data_converter():
    """CloudEventsConverter.configure gives its data JsonConverter `Configuration.subset("json", true)`: the
    `json.`-prefixed options (json.decimal.format=NUMERIC, json.replace.null.with.default=false matched Debezium on
    pg_types_connect.sql and pg_key_defaults_connect.sql, session 17); another `json.` option is refused as a
    JsonConverter's would be."""
    conv = _converter(
        **{
            "json.decimal.format": "NUMERIC",
            "json.replace.null.with.default": "false",
            "json.schemas.enable": "false",
        }
    )
    assert conv.data.encoding.numeric and not conv.data.encoding.replace_null and not conv.data.schemas_enable
    with pytest.raises(ConfigError) as info:
        _converter(**{"json.foo": "1"})
    assert info.value.property == "value.converter.json.foo"
    with pytest.raises(ConfigError) as info:
        _converter(**{"json.decimal.format": "HEX"})
    assert info.value.property == "value.converter.json.decimal.format"


def test_as_key_converter():
    """Connect may name it for keys (Debezium forces its converter type to value): a key is no envelope, so null,
    and an unnamed key schema (ValueToKey) fails the record at `schemaName.endsWith` — what Debezium did on
    pg_connect.sql (`differential_connect diff`, session 17: 15 null keys, 8 records skipped under
    errors.tolerance=all)."""
    conv = build(from_dict({**PG, "key.converter": PG["value.converter"]})).key
    key = _struct("dbserver1.public.t.Key", ("id", Schema("int32")))
    assert conv.from_connect_data("t", [], key, {"id": 1}) is None
    with pytest.raises(ConversionError):
        conv.from_connect_data("t", [], _struct(None, ("op", Schema("string"))), {"op": "c"})
