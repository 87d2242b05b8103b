"""`converters`: Debezium's shipped TinyIntOneToBooleanConverter is accepted on the binlog connectors (its
records are checked against Debezium by the mariadb cases tinyint_bool and tinyint_bool_notx); any other class,
and any converter on PostgreSQL/MongoDB, is refused at start with one line naming the property."""

from __future__ import annotations

import pytest

from emulator.config import ConfigError, from_dict
from emulator.settings import settings_for
from emulator.settings.custom_converters import (
    JdbcSinkTypes,
    TinyIntToBoolean,
    ZeroDateFallback,
    parse_datetime_fallback,
    parse_timestamp_fallback,
    selects,
)

MYSQL = {
    "connector.class": "io.debezium.connector.mysql.MySqlConnector",
    "topic.prefix": "dbserver1",
    "database.hostname": "127.0.0.1",
    "database.user": "root",
    "database.server.id": "184054",
}
PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "topic.prefix": "dbserver1",
    "database.hostname": "127.0.0.1",
    "database.user": "postgres",
    "database.dbname": "postgres",
    "plugin.name": "pgoutput",
}
BINLOG_CLASS = "io.debezium.connector.binlog.converters.TinyIntOneToBooleanConverter"
OLD_CLASS = "io.debezium.connector.mysql.converters.TinyIntOneToBooleanConverter"


def _error(props: dict[str, str]) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        from_dict(props)
    assert "\n" not in str(info.value)
    return info.value


def test_tinyint_converter_parsed_once_into_settings() -> None:
    config = from_dict(
        {
            **MYSQL,
            "converters": "boolean, old",
            "boolean.type": BINLOG_CLASS,
            "boolean.selector": r"db1\.t1\..*,db2.t2.flag",
            "old.type": OLD_CLASS,
            "old.length.checker": "FALSE",
        }
    )
    first, second = settings_for(config).binlog.custom_converters
    assert isinstance(first, TinyIntToBoolean) and first.length_checker and first.selector is not None
    # Predicates.includes: whole-name, case-insensitive matches of <db>.<table>.<column>
    assert selects(first.selector, "db1.t1", "anything") and selects(first.selector, "DB2.T2", "FLAG")
    assert not selects(first.selector, "db1.t10", "a") and not selects(first.selector, "db2.t2", "flag2")
    assert second.selector is None and not second.length_checker  # no selector: every column


def test_jdbc_sink_converter_parsed() -> None:
    config = from_dict(
        {
            **MYSQL,
            "converters": "jdbc",
            "jdbc.type": "io.debezium.connector.mysql.converters.JdbcSinkDataTypesConverter",
            "jdbc.selector.real": "db.t.r.*",
            "jdbc.treat.real.as.double": "no",
        }
    )
    (conv,) = settings_for(config).binlog.custom_converters
    assert isinstance(conv, JdbcSinkTypes)
    assert conv.boolean == () and conv.string == ()  # unset selectors match nothing
    assert selects(conv.real, "db.t", "r1") and not conv.real_as_double  # parseBoolean("no") is false


def test_no_converters_no_settings() -> None:
    assert settings_for(from_dict(MYSQL)).binlog.custom_converters == ()


def test_other_class_refused_naming_its_type_property() -> None:
    err = _error({**MYSQL, "converters": "c", "c.type": "com.example.MyConverter"})
    assert err.property == "c.type"
    assert "com.example.MyConverter" in str(err) and BINLOG_CLASS in str(err)


def test_converters_refused_on_postgres() -> None:
    err = _error({**PG, "converters": "boolean", "boolean.type": BINLOG_CLASS})
    assert err.property == "converters"


def test_jdbc_sink_selector_on_unrecorded_type_refused() -> None:
    """A DECIMAL under selector.boolean: Debezium would convert its BigDecimal, which was not recorded."""
    from emulator.connectors.mysql.custom_converters import convert_column
    from emulator.connectors.mysql.ddl_model import Column
    from emulator.connectors.mysql.types import TypeConfig, UnsupportedColumn, map_column

    config = from_dict(
        {
            **MYSQL,
            "converters": "jdbc",
            "jdbc.type": "io.debezium.connector.binlog.converters.JdbcSinkDataTypesConverter",
            "jdbc.selector.boolean": "db.t.*",
        }
    )
    converters = settings_for(config).binlog.custom_converters
    col = Column("d", "DECIMAL", 3, 1, length=10, scale=2)
    with pytest.raises(UnsupportedColumn) as info:
        convert_column(converters, "db.t", col, map_column(col, TypeConfig()), None)
    assert info.value.property == "jdbc.selector.boolean"
    # a column the selector does not match keeps its own mapping
    mapped = map_column(col, TypeConfig())
    assert convert_column(converters, "db.u", col, mapped, None) == (mapped, None)


def test_converters_refused_with_the_mariadb_connector() -> None:
    err = _error(
        {
            **MYSQL,
            "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
            "converters": "boolean",
            "boolean.type": BINLOG_CLASS,
        }
    )
    assert err.property == "converters"


ZERO_DATE_CLASS = "io.debezium.connector.binlog.converters.ZeroDateFallbackConverter"


def test_zero_date_fallbacks_parsed() -> None:
    """The literals as Debezium parses them (LocalDate, "yyyy-MM-dd HH:mm:ss" as UTC, OffsetDateTime moved
    to UTC and printed with ISO_OFFSET_DATE_TIME); expected values worked out by hand."""
    config = from_dict(
        {
            **MYSQL,
            "converters": "zd",
            "zd.type": ZERO_DATE_CLASS,
            "zd.target.types": "date, Timestamp",
            "zd.fallback.date": "1970-01-02",
            "zd.fallback.datetime": "null",
            "zd.fallback.timestamp": "2000-01-01T01:30:00.250+01:00",
            "zd.selector": ".*",
            "zd.column.db.t.c.fallback": "2010-10-10",
        }
    )
    (zd,) = settings_for(config).binlog.custom_converters
    assert isinstance(zd, ZeroDateFallback)
    assert (zd.date, zd.datetime, zd.timestamp) == (True, False, True)
    assert zd.selector is None  # the default '.*': every column
    assert zd.fallback_date == 1 and zd.fallback_datetime is None
    assert zd.fallback_timestamp == "2000-01-01T00:30:00.25Z"
    assert zd.columns == (("db.t.c", "2010-10-10"),)
    assert parse_datetime_fallback("p", "1970-01-01 00:00:01") == 1_000_000
    assert parse_timestamp_fallback("p", "1970-01-01T00:00Z") == "1970-01-01T00:00:00Z"


def test_zero_date_bad_literal_refused_naming_it() -> None:
    err = _error({**MYSQL, "converters": "zd", "zd.type": ZERO_DATE_CLASS, "zd.fallback.date": "2020-13-01"})
    assert err.property == "zd.fallback.date"


def test_zero_date_literal_fallback_on_nullable_column_refused() -> None:
    """Debezium's converter returns the fallback for a NULL too; the emulator prints NULL as null: refused."""
    from emulator.connectors.mysql.custom_converters import convert_column
    from emulator.connectors.mysql.ddl_model import Column
    from emulator.connectors.mysql.types import TypeConfig, UnsupportedColumn, map_column

    props = {**MYSQL, "converters": "zd", "zd.type": ZERO_DATE_CLASS, "zd.fallback.date": "1970-01-01"}
    converters = settings_for(from_dict(props)).binlog.custom_converters
    nullable = Column("d", "DATE", 91, 1)
    with pytest.raises(UnsupportedColumn) as info:
        convert_column(converters, "db.t", nullable, map_column(nullable, TypeConfig()), None)
    assert info.value.property == "zd.fallback.date"
    required = Column("d", "DATE", 91, 1, optional=False)
    mapped, default = convert_column(converters, "db.t", required, map_column(required, TypeConfig()), None)
    assert mapped.schema.name == "io.debezium.time.Date" and default is None
