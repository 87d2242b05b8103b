"""`converters`: Debezium's shipped TinyIntOneToBooleanConverter is accepted on the binlog connectors (its
records are checked against Debezium by the mariadb cases tinyint_bool and tinyint_bool_notx); any other class,
and any converter on PostgreSQL/MongoDB, is refused at start with one line naming the property."""

from __future__ import annotations

import pytest

from emulator.config import ConfigError, from_dict
from emulator.settings import settings_for
from emulator.settings.custom_converters import TinyIntToBoolean

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
    assert isinstance(first, TinyIntToBoolean) and first.length_checker
    # Predicates.includes: whole-name, case-insensitive matches of <db>.<table>.<column>
    assert first.selects("db1.t1", "anything") and first.selects("DB2.T2", "FLAG")
    assert not first.selects("db1.t10", "a") and not first.selects("db2.t2", "flag2")
    assert second.selects("x.y", "z") and not second.length_checker  # no selector: every column


def test_no_converters_no_settings() -> None:
    assert settings_for(from_dict(MYSQL)).binlog.custom_converters == ()


def test_other_class_refused_naming_its_type_property() -> None:
    err = _error({**MYSQL, "converters": "c", "c.type": "com.example.MyConverter"})
    assert err.property == "c.type"
    assert "com.example.MyConverter" in str(err) and BINLOG_CLASS in str(err)


def test_converters_refused_on_postgres() -> None:
    err = _error({**PG, "converters": "boolean", "boolean.type": BINLOG_CLASS})
    assert err.property == "converters"
