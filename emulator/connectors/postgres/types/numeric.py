"""numeric / decimal / money text -> Debezium's decimal values per `decimal.handling.mode`."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from emulator.connectors.postgres.types.encoders import FLOAT_SPECIAL, b2a, bigint_json
from emulator.connectors.postgres.types.model import Converter

_DEC_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\Z")


def _parse_dec(t: str) -> tuple[int, int]:
    """(unscaled, scale) of a plain decimal literal ("-12.340" -> (-12340, 3)); exponents allowed."""
    if "e" in t or "E" in t:
        sign, digits, exp = Decimal(t).as_tuple()
        u = int("".join(map(str, digits)) or "0")
        return (-u if sign else u), -exp
    i = t.find(".")
    if i < 0:
        return int(t), 0
    return int(t[:i] + t[i + 1 :] or "0"), len(t) - i - 1


def parse_java_bigdecimal(t: str) -> tuple[int, int]:
    if not _DEC_RE.match(t):
        raise ValueError(f"not a BigDecimal literal: {t!r}")
    return _parse_dec(t)


def _rescale(u: int, s: int, target: int) -> int:
    """BigDecimal.setScale(target) (ROUND_UNNECESSARY): raises if digits would be lost."""
    if target >= s:
        return u * 10 ** (target - s)
    q, r = divmod(u, 10 ** (s - target))
    if r:
        raise ArithmeticError("rounding necessary")
    return q


def rescale_half_up(u: int, s: int, target: int) -> int:
    if target >= s:
        return u * 10 ** (target - s)
    d = 10 ** (s - target)
    q, r = divmod(abs(u), d)
    if 2 * r >= d:
        q += 1
    return -q if u < 0 else q


def _java_dec_str(u: int, s: int) -> str:
    """java.math.BigDecimal.toString() (scientific notation when the exponent is small)."""
    if s == 0:
        return str(u)
    digits = str(abs(u))
    adjusted = len(digits) - 1 - s
    if s > 0 and adjusted >= -6:
        if len(digits) > s:
            r = digits[:-s] + "." + digits[-s:]
        else:
            r = "0." + "0" * (s - len(digits)) + digits
    else:
        r = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        r += "E" + ("+" if adjusted >= 0 else "") + str(adjusted)
    return "-" + r if u < 0 else r


def java_plain_str(u: int, s: int) -> str:
    """java.math.BigDecimal.toPlainString()."""
    if s <= 0:
        return str(u * 10 ** (-s))
    digits = str(abs(u))
    if len(digits) > s:
        r = digits[:-s] + "." + digits[-s:]
    else:
        r = "0." + "0" * (s - len(digits)) + digits
    return "-" + r if u < 0 else r


_DEC_SPECIAL_STRING = {"NaN": "NAN", "Infinity": "POSITIVE_INFINITY", "-Infinity": "NEGATIVE_INFINITY"}


def _special_in_required(column: str, t: str) -> ValueError:
    """precise mode makes null of NaN / +-Infinity; in a NOT NULL column Connect's struct validation then
    throws ("Invalid value: null used for required field") and the connector stops, in the snapshot as in
    the stream (recorded: tests/data/pg/cases/numeric_nan_not_null_stops)."""
    return ValueError(
        f"column {column}: numeric {t} cannot be a required decimal under decimal.handling.mode=precise; "
        "Debezium stops here too"
    )


def numeric_fixed_precise(scale: int, required: str | None = None) -> Converter:
    """`required`: the name of a NOT NULL column, whose special values stop the capture."""

    def conv(t: str) -> Any:
        if t[-1] > "9":  # NaN / Infinity / -Infinity: null (+ WARN upstream)
            if required is not None:
                raise _special_in_required(required, t)
            return None
        i = t.find(".")
        if i < 0:
            u, s = int(t), 0
        else:
            u, s = int(t[:i] + t[i + 1 :]), len(t) - i - 1
        if s != scale:
            u = _rescale(u, s, scale)
        n = (u.bit_length() if u >= 0 else (~u).bit_length()) // 8 + 1
        return b2a(u.to_bytes(n, "big", signed=True), newline=False).decode("ascii")

    dot = (
        -1 - scale
    )  # where the point is when the text has the column's scale (PostgreSQL prints numeric(p,s) so)

    def json(b: bytes) -> bytes:
        """`orjson.dumps(conv(text))` from the text's bytes (pgoutput.row_json_parser): no str made."""
        if b[-1] > 57:  # NaN / Infinity / -Infinity
            if required is not None:
                raise _special_in_required(required, b.decode())
            return b"null"
        if scale and len(b) > scale and b[dot] == 46:  # the column's own scale: nothing to rescale
            u = int(b.replace(b".", b"", 1))
        else:
            i = b.find(b".")
            if i < 0:
                u, s = int(b), 0
            else:
                u, s = int(b.replace(b".", b"", 1)), len(b) - i - 1
            if s != scale:
                u = _rescale(u, s, scale)
        if u >= 0:  # a leading zero bit: the unsigned bytes are the signed ones (no keyword to parse)
            return b'"%b"' % b2a(u.to_bytes(u.bit_length() // 8 + 1, "big"), newline=False)
        return b'"%b"' % b2a(u.to_bytes((~u).bit_length() // 8 + 1, "big", signed=True), newline=False)

    conv.json = json
    # the C line path's own reading of such text (fastpg.c P_NUM; `json` the rest)
    conv.c_kind = ("num", scale)
    # the value in a whole-tuple match (pgoutput_match): PostgreSQL prints `scale` digits
    if 0 <= scale < 2048:
        if scale:
            conv.rx = (rb"(-?\d+)\.(\d{%d})" % scale, "{n}j(int({0} + {1}))", {"j": bigint_json})
        else:
            conv.rx = (rb"(-?\d+)", "{n}j(int({0}))", {"j": bigint_json})
    conv.required = lambda column: numeric_fixed_precise(scale, column)
    if required is not None:
        conv.check = _special_check(required)
    return conv


def _special_check(column: str) -> Converter:
    """Raises on the one value a required precise decimal cannot take: the snapshot reader runs it on a row
    as it reads it, as Debezium converts each row before its buffering receiver holds it (so the record
    held before a failing row is lost, tests/data/pg/cases/numeric_nan_not_null_stops)."""

    def check(t: str) -> None:
        if t[-1] > "9":
            raise _special_in_required(column, t)

    # the special values' texts (NaN, Infinity, -Infinity): a COPY message without these cannot fail the check
    # (snapshot_lines.raw_checks)
    check.hints = (b"NaN", b"Infinity")
    return check


def numeric_variable_precise(t: str) -> Any:
    if t[-1] > "9":
        return None
    i = t.find(".")
    if i < 0:
        u, s = int(t), 0
    else:
        frac = t[i + 1 :].rstrip("0")  # stripTrailingZeros, never below scale 0
        u, s = int(t[:i] + frac), len(frac)
    n = (u.bit_length() if u >= 0 else (~u).bit_length()) // 8 + 1
    return {"scale": s, "value": b2a(u.to_bytes(n, "big", signed=True), newline=False).decode("ascii")}


def _numeric_variable_precise_required(column: str) -> Converter:
    def conv(t: str) -> Any:
        if t[-1] > "9":
            raise _special_in_required(column, t)
        return numeric_variable_precise(t)

    conv.check = _special_check(column)
    return conv


numeric_variable_precise.required = _numeric_variable_precise_required


def numeric_double(t: str) -> Any:
    s = FLOAT_SPECIAL.get(t)
    return float(t) if s is None else s


def numeric_string(scale: int | None) -> Converter:
    def conv(t: str) -> Any:
        sp = _DEC_SPECIAL_STRING.get(t)
        if sp is not None:
            return sp
        u, s = _parse_dec(t)
        if scale is not None and s != scale:
            u = _rescale(u, s, scale)
            s = scale
        return java_plain_str(u, s)

    return conv


_MONEY_STRIP = re.compile(r"[^0-9.]")


def parse_money(t: str) -> tuple[int, int]:
    """PostgreSQL's locale-formatted money text ("$1,234.56", "-$0.99", "($5.00)") -> (unscaled, scale)."""
    neg = t[:1] in ("-", "(")
    u, s = _parse_dec(_MONEY_STRIP.sub("", t))
    return (-u if neg else u), s
