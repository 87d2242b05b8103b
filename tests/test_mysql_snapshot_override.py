"""snapshot.select.statement.overrides on the binlog connectors: the statement runs as written and the captured
columns are picked from each row packet by position, so its ORDER BY holds. With a server, against Debezium 3.6.3's
recordings: mariadb cases snapshot_override_excluded_order* (an excluded column, reordered columns) and
snapshot_override_unknown_column_stops (a result column the table lacks stops the snapshot)."""

from __future__ import annotations

from emulator.connectors.mysql.snapshot_select import projected


def test_projected_picks_length_encoded_fields_in_order() -> None:
    long = b"z" * 300  # a 0xFC two-byte length
    packet = b"\x01a" + b"\xfb" + b"\xfc\x2c\x01" + long + b"\x03xyz"
    got = projected(lambda data: data, [3, 1, 0, 2])(packet)
    assert got == b"\x03xyz" + b"\xfb" + b"\x01a" + b"\xfc\x2c\x01" + long
    parse = lambda data: data  # noqa: E731
    assert projected(parse, None) is parse
