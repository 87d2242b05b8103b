"""The snapshot's text-protocol converters' fast paths (values.text_decimal_b64, the time-of-day cache of
values.text_datetime_us) against values worked out by hand: a DECIMAL's unscaled value as Java's
BigInteger.toByteArray in base64, a DATETIME as microseconds since the epoch."""

from __future__ import annotations

import base64

import pytest

from emulator.connectors.mysql.values import text_datetime_us, text_decimal_b64


def _java_bytes_b64(unscaled: int) -> str:
    # BigInteger.toByteArray: the shortest big-endian two's complement with room for the sign bit
    n = 1
    while not -(1 << (8 * n - 1)) <= unscaled < 1 << (8 * n - 1):
        n += 1
    return base64.b64encode(unscaled.to_bytes(n, "big", signed=True)).decode()


@pytest.mark.parametrize(
    "text,scale,unscaled",
    [
        ("12345678.90", 2, 1234567890),  # the server's own form: exactly `scale` fraction digits
        ("-0.01", 2, -1),
        ("0.00", 2, 0),
        ("-0.00", 2, 0),
        ("127", 0, 127),
        ("128", 0, 128),  # needs a second byte for the sign
        ("-128", 0, -128),
        ("1.5", 2, 150),  # fewer digits than the scale (a DEFAULT's text): padded
        ("1.505", 2, 150),  # more: cut, as dec_unscaled
        ("1.50 ", 3, 1500),  # a trailing blank is not a fraction digit
        (" 1.50", 2, 150),
        ("+1.50", 2, 150),
        ("-.5", 1, -5),
        ("99999999999999999999999999999999999.999", 3, 99999999999999999999999999999999999999),
    ],
)
def test_decimal_text_to_java_bytes(text, scale, unscaled):
    assert text_decimal_b64(text, scale) == _java_bytes_b64(unscaled)


def test_datetime_text_with_the_time_of_day_cached():
    day = 19782 * 86_400_000_000  # 2024-02-29
    # the same time of day twice (the second from the cache), then other dates with it
    for _ in range(2):
        assert text_datetime_us("2024-02-29 13:14:15.000789") == day + 47_655_000_789
    assert text_datetime_us("1970-01-01 13:14:15") == 47_655_000_000
    assert text_datetime_us("1969-12-31 13:14:15.5") == -86_400_000_000 + 47_655_500_000
    assert text_datetime_us("2024-02-29 00:00:00.000001") == day + 1
    assert text_datetime_us("2024-02-29 23:59:59.999999") == day + 86_400_000_000 - 1
