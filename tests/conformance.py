"""The record comparison of the conformance tests; it lives in emulator.testing.conformance so that the
differential harness (emulator.testing.differential) applies exactly the same masks."""

from emulator.testing.conformance import Masker, compare, describe, load_dir, load_golden, sections

__all__ = ["Masker", "compare", "describe", "load_dir", "load_golden", "sections"]
