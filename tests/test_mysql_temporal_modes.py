"""time.precision.mode microseconds / nanoseconds / isostring on the binlog connectors
(emulator/connectors/mysql/temporal_modes.py), without a server: the edges against values Debezium 3.6.3 printed in
the recorded cases tests/data/mariadb/cases/time_mode_* and time_nanoseconds_required_out_of_range_stops (the
cases replay the whole paths; these name the edges)."""

from __future__ import annotations

from emulator.connectors.mysql.temporal_modes import iso_date, iso_time, iso_timestamp, nano_timestamp
from emulator.connectors.mysql.values import text_datetime_us, text_time_us


def test_nano_timestamp_range_is_javas_two_steps():
    # last value in (row 2: 9223372036854775000), one microsecond later null
    assert nano_timestamp(text_datetime_us("2262-04-11 23:47:16.854775")) == 9223372036854775000
    assert nano_timestamp(text_datetime_us("2262-04-11 23:47:16.854776")) is None
    # the epoch day is multiplied first: 1677-09-21 is out whatever its time (dn of rows 1 and 3: null)
    assert nano_timestamp(text_datetime_us("1677-09-21 23:59:59.999999")) is None
    assert nano_timestamp(text_datetime_us("1677-09-22 00:00:00")) == -9223286400000000000


def test_iso_time_day_bounds():
    assert iso_time(text_time_us("24:00:00")) == "00:00:00Z"  # t6 '24:00:00'
    assert iso_time(text_time_us("23:59:59.999999")) == "23:59:59.999999Z"
    assert iso_time(text_time_us("12:34:56.7")) == "12:34:56.7Z"
    assert iso_time(text_time_us("-00:00:00.001")) is None
    assert iso_time(text_time_us("100:00:00")) is None


def test_iso_texts_trim_the_fraction():
    assert iso_timestamp(text_datetime_us("1970-01-01 00:00:00.0001")) == "1970-01-01T00:00:00.0001Z"
    assert iso_timestamp(text_datetime_us("1969-12-31 23:59:59.999999")) == "1969-12-31T23:59:59.999999Z"
    assert iso_timestamp(text_datetime_us("1000-01-01 00:00:00")) == "1000-01-01T00:00:00Z"
    assert iso_date(-354285) == "1000-01-01Z"  # d of row 5 (the other modes' days)


def test_time_adjuster_is_one_setting_a_process(monkeypatch):
    # the year decoders are shared by every MySQL/MariaDB connector of the process (REST worker threads): a second
    # connector with the other enable.time.adjuster is refused while the first runs, accepted once it stopped
    import pytest

    from emulator.connectors.mysql import binlog_values
    from emulator.connectors.mysql.binlog_values import hold_time_adjuster, release_time_adjuster
    from emulator.connectors.mysql.values import date_days
    from emulator.settings.errors import ConfigError

    # no connector of this process holds it (others' tests construct connectors in-process and may not close them)
    monkeypatch.setattr(binlog_values, "_ADJUSTER_HOLDERS", {True: 0, False: 0})
    hold_time_adjuster(False)
    try:
        assert date_days(69, 1, 1) < date_days(1900, 1, 1)  # kept as year 69
        hold_time_adjuster(False)  # the same value: shared
        release_time_adjuster(False)
        with pytest.raises(ConfigError, match=r"^enable\.time\.adjuster=true: another"):
            hold_time_adjuster(True)
    finally:
        release_time_adjuster(False)
    hold_time_adjuster(True)
    try:
        assert date_days(69, 1, 1) == date_days(2069, 1, 1)
    finally:
        release_time_adjuster(True)
