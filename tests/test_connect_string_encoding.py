"""StringConverter's `converter.encoding` is Java's `String.getBytes(Charset)`. The expected bytes
(tests/data/connect/jdk17_string_getbytes.txt, lines `CHARSET [TEXT] HEX`) were printed by JDK 17 for each
charset and text (`s.getBytes(Charset.forName(c))`); session 22's draws (connect_draws_s22) set the option,
which no draw had before. Python's encoders differ: UTF-16 / UTF-32 in native order with a BOM, strict errors
where Java writes `?`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from emulator.connect.converters.text_converters import StringConverter
from emulator.connect.schema import Schema

LINE = re.compile(r"^(\S+) \[(.*)\] ([0-9a-f]*)$")
CASES = [
    LINE.match(ln).groups()
    for ln in (Path(__file__).parent / "data" / "connect" / "jdk17_string_getbytes.txt")
    .read_text()
    .splitlines()
    if ln
]


@pytest.mark.parametrize("charset,text,hexed", CASES)
def test_string_converter_writes_java_s_bytes(charset: str, text: str, hexed: str) -> None:
    got = StringConverter(charset).from_connect_data("t", None, Schema("string"), text)
    assert got.hex() == hexed


PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "topic.prefix": "p",
    "database.hostname": "h",
    "database.user": "u",
    "database.dbname": "d",
    "plugin.name": "pgoutput",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
}


@pytest.mark.parametrize(
    "option,hexed",
    [
        # Kafka 3.x's StringConverter in the oracle's JVM (configure({...}), fromConnectData of "héllo"):
        ("converter.encoding", "feff006800e9006c006c006f"),
        ("encoding", "68c3a96c6c6f"),  # not StringConverterConfig's option: UTF-8 still
    ],
)
def test_only_converter_encoding_sets_the_charset(option: str, hexed: str) -> None:
    from emulator.config import from_dict
    from emulator.connect.converters import build

    conv = build(from_dict({**PG, f"value.converter.{option}": "UTF-16"})).value
    assert conv.from_connect_data("t", None, Schema("string"), "héllo").hex() == hexed
