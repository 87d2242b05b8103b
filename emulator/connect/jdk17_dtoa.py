"""JDK 17's `Float.toString` / `Double.toString` digits (`jdk.internal.math.FloatingDecimal`'s
`BinaryToASCIIBuffer.dtoa`), rewritten in Python.

Why not the shortest round-trip text: JDK 17 does not print it. Its digit loop stops on a symmetric
half-ULP test, forces a second digit in E-form, rounds integer-valued floats through "insignificant
digits", and does its small cases in 32/64-bit arithmetic that can overflow. About 11% of float32 values
print differently from the shortest text (e.g. `-1.17549435E-38`, not `-1.1754944E-38`). JDK 19+ prints
the shortest (JDK-4511638); Debezium's recordings here come from a Java 17 JVM, so this module reproduces
Java 17 to the digit, quirks included. Verified against the local JVM (scripts/javatext/).
"""

from __future__ import annotations

import math
import struct

_EXP_SHIFT = 52  # double significand bits after the point
_FRACT_HOB = 1 << _EXP_SHIFT
_MAX_SMALL_BIN_EXP = 62
_MIN_SMALL_BIN_EXP = -21
# approximately ceil(log2(5^i)): FloatingDecimal's size estimates pick the int / long / big-integer path,
# and the int and long paths wrap on overflow, so the same estimates must pick the same path here
_N_5_BITS = (0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56, 59, 61)  # fmt: skip
# insignificantDigits(1 << i): decimal digits below a power-of-two ULP of an integer-valued float
_INSIGNIFICANT_POW2 = (
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 9,
    10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17,
    17, 18, 18, 18, 19,
)  # fmt: skip
_LONG_5_POW_LEN = 27  # 5^0 .. 5^26 fit a long


def _i32(x: int) -> int:
    """Java `int` wrap-around."""
    x &= 0xFFFFFFFF
    return x - 0x100000000 if x & 0x80000000 else x


def _i64(x: int) -> int:
    """Java `long` wrap-around."""
    x &= 0xFFFFFFFFFFFFFFFF
    return x - 0x10000000000000000 if x & 0x8000000000000000 else x


def _estimate_dec_exp(fract_bits: int, bin_exp: int) -> int:
    # floor of a linear estimate of log10, computed in doubles exactly as Java does (same IEEE operations)
    d2 = struct.unpack("<d", struct.pack("<Q", (1023 << 52) | (fract_bits & (_FRACT_HOB - 1))))[0]
    d = (d2 - 1.5) * 0.289529654 + 0.176091259 + bin_exp * 0.301029995663981
    return math.floor(d)


def _long_digits(lvalue: int, insignificant: int) -> tuple[list[int], int]:
    """developLongDigits: an integer value's digits, rounded half-up below `insignificant` digits."""
    dec_exp = 0
    if insignificant:
        pow10 = 10**insignificant
        residue = lvalue % pow10
        lvalue //= pow10
        dec_exp += insignificant
        if residue >= pow10 >> 1:
            lvalue += 1
    text = str(lvalue)
    return [ord(c) - 48 for c in text.rstrip("0")], dec_exp + len(text)


def _dtoa(bin_exp: int, fract_bits: int, n_significant_bits: int) -> tuple[list[int], int]:
    """Digits and decimal exponent (value = 0.d1d2... * 10^exp) as JDK 17's dtoa(isCompatibleFormat=true)."""
    tail_zeros = (fract_bits & -fract_bits).bit_length() - 1
    n_fract_bits = _EXP_SHIFT + 1 - tail_zeros
    n_tiny_bits = max(0, n_fract_bits - bin_exp - 1)
    if _MIN_SMALL_BIN_EXP <= bin_exp <= _MAX_SMALL_BIN_EXP:
        # integer-valued and small: printed from a long, digits past the ULP rounded away
        if n_tiny_bits < _LONG_5_POW_LEN and n_fract_bits + _N_5_BITS[n_tiny_bits] < 64 and n_tiny_bits == 0:
            p2 = bin_exp - n_significant_bits - 1
            insignificant = _INSIGNIFICANT_POW2[p2] if bin_exp > n_significant_bits and 1 < p2 < 64 else 0
            if bin_exp >= _EXP_SHIFT:
                fract_bits <<= bin_exp - _EXP_SHIFT
            else:
                fract_bits >>= _EXP_SHIFT - bin_exp
            return _long_digits(fract_bits, insignificant)
    # the general case: value = B / S * 10^decExp, M = half an ULP scaled like B
    dec_exp = _estimate_dec_exp(fract_bits, bin_exp)
    b5 = max(0, -dec_exp)
    b2 = b5 + n_tiny_bits + bin_exp
    s5 = max(0, dec_exp)
    s2 = s5 + n_tiny_bits
    m5 = b5
    m2 = b2 - n_significant_bits
    fract_bits >>= tail_zeros
    b2 -= n_fract_bits - 1
    common2 = min(b2, s2)
    b2 -= common2
    s2 -= common2
    m2 -= common2
    if n_fract_bits == 1:
        m2 -= 1  # a power of two: the next lower value is half as far (Java's "HACK", kept as is)
    if m2 < 0:
        b2 -= m2
        s2 -= m2
        m2 = 0
    b_bits = n_fract_bits + b2 + (_N_5_BITS[b5] if b5 < len(_N_5_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_N_5_BITS[s5 + 1] if s5 + 1 < len(_N_5_BITS) else (s5 + 1) * 3)
    digits: list[int] = []
    if b_bits < 64 and ten_s_bits < 64:
        # Java's int or long path: same loop, but with wrap-around and a strict `b + m > tens` high test
        wrap = _i32 if (b_bits < 32 and ten_s_bits < 32) else _i64
        sh = 31 if wrap is _i32 else 63  # Java masks shift counts
        fb = _i32(fract_bits) if wrap is _i32 else fract_bits
        b = wrap(wrap(fb * 5**b5) << (b2 & sh))
        s = wrap(5**s5 << (s2 & sh))
        m = wrap(5**m5 << (m2 & sh))
        tens = wrap(s * 10)
        q = b // s
        b = wrap(10 * (b % s))
        m = wrap(m * 10)
        low = b < m
        high = wrap(b + m) > tens
        if q == 0 and not high:
            dec_exp -= 1  # the estimate was one too high: drop the leading zero
        else:
            digits.append(q)
        if dec_exp < -3 or dec_exp >= 8:
            high = low = False  # E-form needs a digit after the point: never stop at the first digit
        while not low and not high:
            q = b // s
            b = wrap(10 * (b % s))
            m = wrap(m * 10)
            if m > 0:
                low = b < m
                high = wrap(b + m) > tens
            else:  # m overflowed: Java stops here
                low = high = True
            digits.append(q)
        low_digit_difference = wrap((b << 1) - tens)
    else:
        # FDBigInteger path: exact arithmetic, and the high test is `b + m >= tens` here
        bv = fract_bits * 5**b5 << b2
        sv = 5**s5 << s2
        mv = 5 ** (m5 + 1) << (m2 + 1)
        ten_sv = sv * 10
        q, r = divmod(bv, sv)
        bv = 10 * r
        low = bv < mv
        high = bv + mv >= ten_sv
        if q == 0 and not high:
            dec_exp -= 1
        else:
            digits.append(q)
        if dec_exp < -3 or dec_exp >= 8:
            high = low = False
        while not low and not high:
            q, r = divmod(bv, sv)
            bv = 10 * r
            mv *= 10
            low = bv < mv
            high = bv + mv >= ten_sv
            digits.append(q)
        if high and low:
            c = (bv << 1) - ten_sv
            low_digit_difference = (c > 0) - (c < 0)
        else:
            low_digit_difference = 0
    dec_exponent = dec_exp + 1
    if high and (not low or low_digit_difference > 0 or (low_digit_difference == 0 and digits[-1] & 1)):
        dec_exponent += _roundup(digits)
    return digits, dec_exponent


def _roundup(digits: list[int]) -> int:
    """Add one to the last digit; on a carry out of the first digit Java writes `1` and keeps the zeros."""
    i = len(digits) - 1
    while digits[i] == 9 and i > 0:
        digits[i] = 0
        i -= 1
    if digits[i] == 9:
        digits[0] = 1
        return 1
    digits[i] += 1
    return 0


def _chars(negative: bool, digits: list[int], dec_exponent: int) -> str:
    """getChars: plain between 10^-3 and 10^7, else d.dddE±n; always a digit after the point."""
    ds = "".join(map(str, digits))
    n = len(ds)
    if 0 < dec_exponent < 8:
        if n < dec_exponent:
            text = ds + "0" * (dec_exponent - n) + ".0"
        else:
            text = ds[:dec_exponent] + "." + (ds[dec_exponent:] or "0")
    elif -3 < dec_exponent <= 0:
        text = "0." + "0" * -dec_exponent + ds
    else:
        text = ds[0] + "." + (ds[1:] or "0") + "E" + str(dec_exponent - 1)
    return "-" + text if negative else text


def float_bits_text(bits: int) -> str:
    """`Float.toString(Float.intBitsToFloat(bits))` on JDK 17."""
    negative = bool(bits & 0x80000000)
    fract = bits & 0x7FFFFF
    bin_exp = (bits >> 23) & 0xFF
    if bin_exp == 0xFF:
        return "NaN" if fract else ("-Infinity" if negative else "Infinity")
    if bin_exp == 0:
        if fract == 0:
            return "-0.0" if negative else "0.0"
        leading_zeros = 32 - fract.bit_length()
        shift = leading_zeros - 8
        fract <<= shift
        bin_exp = 1 - shift
        n_significant = 32 - leading_zeros
    else:
        fract |= 1 << 23
        n_significant = 24
    digits, dec_exponent = _dtoa(bin_exp - 127, fract << (_EXP_SHIFT - 23), n_significant)
    return _chars(negative, digits, dec_exponent)


def double_bits_text(bits: int) -> str:
    """`Double.toString(Double.longBitsToDouble(bits))` on JDK 17."""
    negative = bool(bits >> 63)
    fract = bits & (_FRACT_HOB - 1)
    bin_exp = (bits >> 52) & 0x7FF
    if bin_exp == 0x7FF:
        return "NaN" if fract else ("-Infinity" if negative else "Infinity")
    if bin_exp == 0:
        if fract == 0:
            return "-0.0" if negative else "0.0"
        leading_zeros = 64 - fract.bit_length()
        shift = leading_zeros - 11
        fract <<= shift
        bin_exp = 1 - shift
        n_significant = 64 - leading_zeros
    else:
        fract |= _FRACT_HOB
        n_significant = 53
    digits, dec_exponent = _dtoa(bin_exp - 1023, fract, n_significant)
    return _chars(negative, digits, dec_exponent)
