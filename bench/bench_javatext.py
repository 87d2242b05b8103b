"""Cost of JDK 17 float/double text, as ratios to `repr` (the shortest digits, C code).

    PYTHONPATH=$PWD python bench/bench_javatext.py [N]

Plain-range values ([1e-3, 1e7), the common case in tables) keep the shortest-digit path; E-form values
run the jdk17_dtoa port in Python.
"""

from __future__ import annotations

import random
import struct
import sys
import time

from emulator.connect.javatext import double_text, float_text
from emulator.connectors.postgres.types.encoders import conv_float4


def _per_value(fn, values) -> float:
    t0 = time.process_time()
    for v in values:
        fn(v)
    return (time.process_time() - t0) / len(values)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rnd = random.Random(1)
    f32 = struct.Struct("<f")
    plain_d = [rnd.uniform(-1e4, 1e4) for _ in range(n)]
    eform_d = [rnd.uniform(1, 10) * 10.0 ** rnd.randint(-300, 300) for _ in range(n)]
    plain_f = [f32.unpack(f32.pack(v))[0] for v in plain_d]
    eform_f = [f32.unpack(f32.pack(rnd.uniform(1, 10) * 10.0 ** rnd.randint(-37, 37)))[0] for _ in range(n)]
    base = _per_value(repr, plain_d)
    rows = [
        ("double_text plain", _per_value(double_text, plain_d)),
        ("double_text E-form", _per_value(double_text, eform_d)),
        ("float_text plain", _per_value(float_text, plain_f)),
        ("float_text E-form", _per_value(float_text, eform_f)),
        ("PG real text plain", _per_value(conv_float4, [repr(v) for v in plain_f])),
        ("PG real text E-form", _per_value(conv_float4, [repr(v) for v in eform_f])),
    ]
    print(f"repr: {base * 1e6:.2f} us/value (= 1.0)")
    for name, t in rows:
        print(f"{name}: {t / base:.1f}x repr")


if __name__ == "__main__":
    main()
