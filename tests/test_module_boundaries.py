"""No module uses another module's private names: an underscore name (``_x``, not ``__x__``) is imported or
read only in the module that defines it.  A name another module needs is public (no underscore) or lives
where it is used.  A plain AST scan of the product packages (``emulator/``, ``sink/``) and of the scripts and
benchmarks that use them, so it needs no server.  There is no allow-list: the last crossings (the PostgreSQL
type package, one module split in several files; four in the sink; two read by scripts/properties_doc.py)
were made public.  Tests use public names too (TESTS_ALLOWED lists exceptions; none now).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("emulator", "sink")  # whose private names stay private
SCANNED = (*PACKAGES, "scripts", "bench")
# (test module, defining module, name): private helpers a test still checks directly
TESTS_ALLOWED: set[tuple[str, str, str]] = set()


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _ours(dotted: str) -> bool:
    return dotted.split(".")[0] in PACKAGES


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(source: str, module: str) -> set[tuple[str, str]]:
    """``(defining module, name)`` for each private name of another product module that ``source``
    (the text of ``module``) imports (``from m import _x``) or reads (``import m; m._x``)."""
    tree = ast.parse(source)
    found: set[tuple[str, str]] = set()
    modules: dict[str, str] = {}  # local name -> product module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _ours(alias.name):
                    modules[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and _ours(node.module):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if _is_module(full):
                    modules[alias.asname or alias.name] = full
                elif _private(alias.name) and node.module != module:
                    found.add((node.module, alias.name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            bound = modules.get(ast.unparse(node.value))
            if bound is not None and bound != module:
                found.add((bound, node.attr))
    return found


def _scan(folders: tuple[str, ...] = SCANNED) -> set[tuple[str, str, str]]:
    out = set()
    for path in sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        module = ".".join(parts)
        for defining, name in private_uses(path.read_text(), module):
            out.add((module, defining, name))
    return out


def test_the_scan_finds_private_uses() -> None:
    src = (
        "from emulator.settings.values import _parse_int, compile_anchored\n"
        "from emulator.connectors.mysql import binlog as bl\n"
        "import emulator.envelope\n"
        "from emulator.x import __version__\n"
        "h = bl._HEADER + bl.HEADER\n"
        "e = emulator.envelope._private\n"
        "from sink.types import _NTZ, spark_type\n"
        "from sinkhole import _other\n"
        "self._own = 1\n"
    )
    assert private_uses(src, "emulator.demo") == {
        ("emulator.settings.values", "_parse_int"),
        ("emulator.connectors.mysql.binlog", "_HEADER"),
        ("emulator.envelope", "_private"),
        ("sink.types", "_NTZ"),
    }


def test_no_private_names_cross_modules() -> None:
    crossing = sorted(_scan())
    assert crossing == [], "make the name public (drop the underscore) or move it to the module that uses it"


def test_tests_use_public_names() -> None:
    crossing = sorted(_scan(("tests",)) - TESTS_ALLOWED)
    assert crossing == [], "test the public name (or make the helper public), not a module's private one"
