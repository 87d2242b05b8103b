"""`database.ssl.mode` as PyMySQL connection options, shared by every connection of the MySQL/MariaDB
connector: the snapshot's and chunk readers', the binlog reader's (pymysqlreplication passes them on to
PyMySQL) and the start-up checks'.

The modes that verify the server's certificate (`verify_ca`, `verify_identity`, MariaDB's `verify-ca`,
`verify-full`) need a trust store in Debezium's Java forms (`database.ssl.truststore`): refused at start
(emulator/settings/audit.py)."""

from __future__ import annotations

from typing import Any

# encrypted, the server's certificate not verified: Connector/J's REQUIRED (MySqlConnector) and MariaDB
# Connector/J's trust (MariaDbConnector)
_ENCRYPT_ONLY = frozenset({"required", "trust"})
_OFF = frozenset({"disabled", "disable"})


def tls_options(ssl_mode: str) -> dict[str, Any]:
    """PyMySQL keyword arguments for a `database.ssl.mode` value (lower-cased by the settings).

    `required`: PyMySQL asks for TLS in the handshake and, when the server offers none, fails before it
    authenticates (error 2026), as Connector/J fails with "SSL Connection required, but not provided by
    server" (recorded: Debezium 3.6.3 stops at its connection validation). `preferred`: PyMySQL's own
    preferred mode, TLS when the server offers it. `disabled`: no TLS."""
    if ssl_mode in _OFF:
        return {"ssl_disabled": True}
    if ssl_mode in _ENCRYPT_ONLY:
        return {"ssl": {"check_hostname": False, "verify_mode": False}}
    return {}
