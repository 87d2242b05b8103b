"""Compare emulator.connect.jdk17_dtoa with a table from JavaNumberText.java: `compare.py f|d TABLE`."""

import sys

from emulator.connect.jdk17_dtoa import double_bits_text, float_bits_text

kind, path = sys.argv[1], sys.argv[2]
fn = float_bits_text if kind == "f" else double_bits_text
bad = total = 0
with open(path) as fh:
    for line in fh:
        hexbits, want = line.rstrip("\n").split("\t")
        total += 1
        got = fn(int(hexbits, 16))
        if got != want:
            bad += 1
            if bad <= 10:
                print(f"{hexbits}: java {want} ours {got}")
print(f"{kind}: {total} samples, {bad} differ")
sys.exit(1 if bad else 0)
