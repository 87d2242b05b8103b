"""`post.processors`: Debezium's ReselectColumnsPostProcessor is accepted on PostgreSQL and the MySqlConnector
(its records are checked against Debezium by the pg cases reselect_* and the mariadb case reselect_nulls); an
alias without class or options, any other class, and the property on the MariaDbConnector and MongoDB are
refused at start, one line naming the property. Options and defaults as ReselectColumnsPostProcessor.configure reads them (Debezium 3.6.3)."""

from __future__ import annotations

import logging

import pytest

from emulator.config import ConfigError, from_dict
from emulator.settings import settings_for

RESELECT = "io.debezium.processors.reselect.ReselectColumnsPostProcessor"
PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "topic.prefix": "dbserver1",
    "database.hostname": "127.0.0.1",
    "database.user": "postgres",
    "database.dbname": "postgres",
    "plugin.name": "pgoutput",
}
MYSQL = {
    "connector.class": "io.debezium.connector.mysql.MySqlConnector",
    "topic.prefix": "dbserver1",
    "database.hostname": "127.0.0.1",
    "database.user": "root",
    "database.server.id": "184054",
}
MARIADB = {**MYSQL, "connector.class": "io.debezium.connector.mariadb.MariaDbConnector"}
MONGO = {
    "connector.class": "io.debezium.connector.mongodb.MongoDbConnector",
    "topic.prefix": "dbserver1",
    "mongodb.connection.string": "mongodb://127.0.0.1:27017/?replicaSet=rs0",
}


def _error(props: dict[str, str]) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        from_dict(props)
    return info.value


def _processors(props: dict[str, str]):
    return settings_for(from_dict({**PG, **props})).postgres.post_processors


def test_unset_means_none() -> None:
    assert _processors({}) == ()


def test_defaults_older_convention() -> None:
    (p,) = _processors({"post.processors": "r", "r.type": RESELECT})
    assert (p.alias, p.include, p.exclude) == ("r", None, None)
    assert (p.unavailable_values, p.null_values, p.use_event_key, p.fail) == (True, True, False, False)
    assert p.selects("public.t:anything")


def test_current_convention_wins_over_the_older_one() -> None:
    (p,) = _processors(
        {
            "post.processors": "r",
            "r.type": RESELECT,
            "r.reselect.null.values": "true",
            "post.processors.r.type": RESELECT,
            "post.processors.r.reselect.null.values": " FALSE ",
            "post.processors.r.reselect.use.event.key": "TRUE",
            "post.processors.r.reselect.error.handling.mode": "Fail",
        }
    )
    assert (p.null_values, p.use_event_key, p.fail) == (False, True, True)


def test_booleans_other_than_true_false_keep_the_default() -> None:
    # Configuration.getBoolean: neither "true" nor "false" -> the default
    (p,) = _processors({"post.processors": "r", "r.type": RESELECT, "r.reselect.unavailable.values": "no"})
    assert p.unavailable_values is True


def test_unknown_error_mode_is_warn() -> None:
    # ErrorHandlingMode.parse answers null for an unknown value: not FAIL
    (p,) = _processors({"post.processors": "r", "r.type": RESELECT, "r.reselect.error.handling.mode": "x"})
    assert p.fail is False


def test_include_list_wins_and_matches_whole_name_case_insensitively() -> None:
    (p,) = _processors(
        {
            "post.processors": "r",
            "r.type": RESELECT,
            "r.reselect.columns.include.list": "PUBLIC.T:BIG,public\\.u:h.*",
            "r.reselect.columns.exclude.list": "public.t:big",
        }
    )
    assert p.selects("public.t:big") and p.selects("public.u:hs")
    assert not p.selects("public.t:bigger") and not p.selects("public.t:other")


def test_exclude_list() -> None:
    (p,) = _processors(
        {"post.processors": "r", "r.type": RESELECT, "r.reselect.columns.exclude.list": "public.t:.*"}
    )
    assert not p.selects("public.t:a") and p.selects("public.u:a")


def test_two_aliases_in_order() -> None:
    got = _processors({"post.processors": "b, a", "a.type": RESELECT, "post.processors.b.type": RESELECT})
    assert [p.alias for p in got] == ["b", "a"]


def test_alias_without_type_is_refused() -> None:
    err = _error({**PG, "post.processors": "r"})
    assert err.property == "r.type"
    assert "\n" not in str(err)


def test_other_class_is_refused() -> None:
    err = _error({**PG, "post.processors": "r", "r.type": "com.example.MyProcessor"})
    assert err.property == "r.type" and "not supported" in str(err)
    err = _error(
        {**PG, "post.processors": "r", "post.processors.r.type": "io.debezium.Other", "r.type": RESELECT}
    )
    assert err.property == "post.processors.r.type"


def test_options_of_an_alias_are_not_unknown_properties() -> None:
    from_dict({**PG, "post.processors": "r", "r.type": RESELECT, "r.reselect.whatever": "1"})


def test_mysql_connector_accepts_it() -> None:
    typed = settings_for(from_dict({**MYSQL, "post.processors": "r", "r.type": RESELECT}))
    assert [p.alias for p in typed.binlog.post_processors] == ["r"]
    err = _error({**MYSQL, "post.processors": "r", "r.type": "com.example.MyProcessor"})
    assert err.property == "r.type"


@pytest.mark.parametrize("base", [MARIADB, MONGO], ids=["mariadbconnector", "mongodb"])
def test_refused_on_other_connectors(base: dict[str, str]) -> None:
    err = _error({**base, "post.processors": "r", "r.type": RESELECT})
    assert err.property == "post.processors"


def _warnings(caplog: pytest.LogCaptureFixture, props: dict[str, str]) -> list[str]:
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="emulator.settings.post_processors"):
        config = from_dict({**PG, **props})
        first = settings_for(config).postgres.post_processors
        assert settings_for(config).postgres.post_processors is first  # read once per configuration
    return [r.getMessage() for r in caplog.records if r.name == "emulator.settings.post_processors"]


def test_misspelt_option_is_accepted_and_named_in_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    props = {"post.processors": "r", "r.type": RESELECT, "r.reselect.nul.values": "false"}
    (p,) = _processors(props)
    assert p.null_values is True  # ignored, as Debezium's processor ignores it: the default stays
    (msg,) = _warnings(caplog, props)
    assert "'r'" in msg and "r.reselect.nul.values" in msg
    # the known names, in the convention the user wrote
    assert "r.reselect.null.values" in msg and "r.reselect.columns.include.list" in msg


def test_current_convention_names_its_own_options_and_the_shadowed_older_ones(
    caplog: pytest.LogCaptureFixture,
) -> None:
    props = {
        "post.processors": "r",
        "post.processors.r.type": RESELECT,
        "post.processors.r.reselect.use.event.keys": "true",
        "r.reselect.null.values": "false",  # not read: post.processors.r.* options exist
    }
    (msg,) = _warnings(caplog, props)
    assert "post.processors.r.reselect.use.event.keys" in msg and "r.reselect.null.values" in msg
    assert "known options: post.processors.r.type, post.processors.r.reselect.columns.include.list" in msg


def test_known_options_log_nothing(caplog: pytest.LogCaptureFixture) -> None:
    props = {
        "post.processors": "a,b",
        "a.type": RESELECT,
        "a.reselect.columns.include.list": "public.t:x",
        "a.reselect.columns.exclude.list": "public.t:y",
        "a.reselect.unavailable.values": "false",
        "a.reselect.null.values": "false",
        "a.reselect.use.event.key": "true",
        "a.reselect.error.handling.mode": "fail",
        "post.processors.b.type": RESELECT,
        "post.processors.b.reselect.null.values": "true",
    }
    assert _warnings(caplog, props) == []
