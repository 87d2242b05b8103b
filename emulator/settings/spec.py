"""The property table's vocabulary: connector kinds and classes, value types, converter classes, and
:class:`PropertySpec` (one row: name, type, Debezium 3.6.3 default, allowed values, connectors, checks,
support status)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

POSTGRES = "postgres"
MYSQL = "mysql"
MARIADB = "mariadb"
MONGODB = "mongodb"

CONNECTOR_CLASSES: dict[str, str] = {
    "io.debezium.connector.postgresql.PostgresConnector": POSTGRES,
    "io.debezium.connector.mysql.MySqlConnector": MYSQL,
    "io.debezium.connector.mariadb.MariaDbConnector": MARIADB,
    "io.debezium.connector.mongodb.MongoDbConnector": MONGODB,
}
"""Known ``connector.class`` values and the connector kind each one selects."""

# Kafka Connect also accepts a plugin's simple class name or that name without the "Connector" suffix.
CLASS_ALIASES: dict[str, str] = {}
for _fqcn in CONNECTOR_CLASSES:
    _simple = _fqcn.rsplit(".", 1)[1]
    CLASS_ALIASES[_simple] = _fqcn
    CLASS_ALIASES[_simple[: -len("Connector")]] = _fqcn

CONNECTOR_SIMPLE_NAMES = {
    POSTGRES: "PostgresConnector",
    MYSQL: "MySqlConnector",
    MARIADB: "MariaDbConnector",
    MONGODB: "MongoDbConnector",
}

ALL = frozenset({POSTGRES, MYSQL, MARIADB, MONGODB})
PG = frozenset({POSTGRES})
MY = frozenset({MYSQL})
MA = frozenset({MARIADB})
MO = frozenset({MONGODB})
BINLOG = frozenset({MYSQL, MARIADB})
REL = frozenset({POSTGRES, MYSQL, MARIADB})
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
SIMPLE_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"
AVRO_CONVERTER = "io.confluent.connect.avro.AvroConverter"
CLOUDEVENTS_CONVERTER = "io.debezium.converters.CloudEventsConverter"
# Kafka's NumberConverters and BooleanConverter (emulator.connect.converters.number_converters)
NUMBER_CONVERTERS = tuple(
    f"org.apache.kafka.connect.converters.{n}Converter"
    for n in ("Integer", "Long", "Short", "Float", "Double", "Boolean")
)
# emulated converter classes (options are checked by emulator.connect.converters.build)
DATA_CONVERTERS = (
    JSON_CONVERTER,
    STRING_CONVERTER,
    BYTE_ARRAY_CONVERTER,
    AVRO_CONVERTER,
    CLOUDEVENTS_CONVERTER,
    *NUMBER_CONVERTERS,
)
HEADER_CONVERTERS = (
    JSON_CONVERTER,
    SIMPLE_HEADER_CONVERTER,
    STRING_CONVERTER,
    BYTE_ARRAY_CONVERTER,
    AVRO_CONVERTER,
    *NUMBER_CONVERTERS,
)

# --------------------------------------------------------------------------------------------- table

STRING = "string"
PASSWORD = "password"
INT = "int"
SHORT = "short"
LONG = "long"
DOUBLE = "double"
BOOL = "bool"
ENUM = "enum"
LIST = "list"
REGEX_LIST = "regex-list"
CLASS = "class"

INT_RANGES = {
    SHORT: (-(2**15), 2**15 - 1),
    INT: (-(2**31), 2**31 - 1),
    LONG: (-(2**63), 2**63 - 1),
}


class ConfigView(Protocol):
    """What a row's computed default or check may read of the configuration being validated
    (:class:`emulator.settings.raw.Config` provides it; a protocol keeps the table free of that import)."""

    props: dict[str, str]
    source_format: str

    @property
    def connector(self) -> str | None: ...

    def get(self, name: str) -> str | None: ...


Default = str | Callable[[ConfigView], "str | None"] | None
Check = Callable[[ConfigView, str], "str | None"]


@dataclass(frozen=True)
class PropertySpec:
    """One row of the property table."""

    name: str
    type: str
    default: Default = None
    allowed: tuple[str, ...] | None = None  # enums: lower-case allowed values
    required: bool = False
    applies: frozenset[str] = ALL  # connector kinds the row applies to
    min: int | None = None  # numeric lower bound
    check: Check | None = None  # extra validation: returns a problem or None
    pattern: re.Pattern[str] | None = None  # for templated names such as column.mask.with.<N>.chars
    supported: tuple[str, ...] | None = None  # values the emulator implements (None: every valid value)
    effect: str = "implemented"  # or "no effect": accepted, cannot change the records
    note: str = ""

    def default_for(self, config: ConfigView) -> str | None:
        if callable(self.default):
            return self.default(config)
        return self.default


def prop_row(
    name: str, type: str, default: Default = None, applies: frozenset[str] = ALL, **kw: Any
) -> PropertySpec:
    if isinstance(default, bool):
        default = "true" if default else "false"
    elif isinstance(default, int):
        default = str(default)
    allowed = kw.pop("allowed", None)
    if allowed is not None:
        allowed = tuple(a.lower() for a in allowed)
    return PropertySpec(name, type, default, allowed=allowed, applies=applies, **kw)


def enum_row(
    name: str, allowed: Iterable[str], default: str | None, applies: frozenset[str] = ALL, **kw: Any
) -> PropertySpec:
    return prop_row(name, ENUM, default, applies, allowed=tuple(allowed), **kw)
