"""snapshot.locking.mode per binlog connector, as Debezium 3.6.3 validates it at start. The MySqlConnector's list
(from its refusal in a Debezium run, campaign seed 75009: "Value must be one of minimal, minimal_percona, custom,
none, minimal_percona_no_table_locks, extended") has no minimal_at_least_once, which the emulator accepted."""

from __future__ import annotations

import pytest

from emulator.config import ConfigError, from_dict

MYSQL = {
    "connector.class": "io.debezium.connector.mysql.MySqlConnector",
    "topic.prefix": "dbserver1",
    "database.hostname": "127.0.0.1",
    "database.user": "root",
    "database.server.id": "184054",
}
MARIADB = {**MYSQL, "connector.class": "io.debezium.connector.mariadb.MariaDbConnector"}


def test_mysql_connector_refuses_minimal_at_least_once() -> None:
    with pytest.raises(ConfigError) as info:
        from_dict({**MYSQL, "snapshot.locking.mode": "minimal_at_least_once"})
    assert info.value.property == "snapshot.locking.mode"


@pytest.mark.parametrize("mode", ["minimal", "minimal_percona", "extended", "none"])
def test_mysql_connector_accepts_its_modes(mode: str) -> None:
    from_dict({**MYSQL, "snapshot.locking.mode": mode})


def test_mariadb_connector_keeps_minimal_at_least_once() -> None:
    from_dict({**MARIADB, "snapshot.locking.mode": "minimal_at_least_once"})
