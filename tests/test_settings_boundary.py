"""No module outside emulator/settings (and the emulator.config shim) reads the raw configuration by property
name: code reads typed settings (emulator.settings.settings_for).  A plain AST scan, so it needs no server.

TO_CONVERT lists the modules that still read raw properties (none since issue 13: keep it empty).  A module
that starts reading raw properties fails the test, and so does a listed module that no longer does.
"""

from __future__ import annotations

import ast
from pathlib import Path

from emulator.config import property_spec

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "emulator"

# raw readers allowed by design: the settings package and the shim that re-exports it
OWNERS = ("emulator/settings/", "emulator/config.py")
# the differential harness and the oracle drivers write (or, in the oracle's own venv, run) the one property
# dict both engines get, real Debezium and the emulator, before either reads it: no validated Config exists
# there, and the oracle must get the dict as written; the workload generators draw that dict and the
# harness's deliberate-difference check reads the recorded one (the configuration Debezium ran with)
HARNESS = (
    "emulator/testing/differential",
    "emulator/testing/oracle",
    "emulator/testing/connect_draws",
    "emulator/testing/workloads",
    "emulator/testing/deliberate.py",
    "emulator/testing/deliberate_julian.py",
)

TO_CONVERT: frozenset[str] = frozenset()  # every module reads typed settings (issue 13)

# Reads that stay raw by design, each with its reason: the REST front door checks what a request body itself
# says (a plain dict of strings) before, or instead of, building a Config; Kafka Connect answers from the body
# as sent (an unset versus a blank name, the plugin a body names versus the URL's).  Each entry must still be
# read (the test below fails when one is no longer needed).
RAW_BY_DESIGN: dict[str, dict[str, str]] = {
    "emulator/connect/converters/__init__.py": {
        "header.converter": "whether the user named a header converter at all: unnamed, each output keeps its "
        "own default (JSON to files, SimpleHeaderConverter to Kafka), which the default-filled setting hides",
    },
    "emulator/connect_validate.py": {
        "connector.class": "the request names the plugin; validation builds the Config from it",
        "name": "Connect's name check needs the value as sent (blank, control characters), even when the "
        "rest of the configuration fails validation",
    },
    "emulator/rest_app.py": {
        "connector.class": "PUT .../config/validate: the body's class is compared with the URL's plugin first",
        "name": "POST /connectors: the connector's name comes from the body, before any validation",
    },
    # the random workload generator writes a property dict into a workload, for the differential harness
    "emulator/testing/workloads.py": {
        "snapshot.mode": "generate_pg: the random workload's own property dict decides whether an "
        "incremental snapshot can run (it is written into the workload, not run)",
    },
    "emulator/testing/workloads_pg_s17.py": {
        "snapshot.select.statement.overrides": "s17_draws: several tables only where no other draw named one (the "
        "random workload's property dict, written into it, not run)",
    },
    "emulator/testing/workloads_pg_s18.py": {
        "column.propagate.source.type": "s18_draws: a regex only where no other draw set one (the random "
        "workload's property dict, written into it, not run)",
    },
    "emulator/testing/workloads_mariadb_users.py": {
        "provide.transaction.metadata": "without_tx: the random MariaDB workload's property dict is left as "
        "another draw set it (it is written into the workload, not run)",
        "snapshot.mode": "late_draws: `always` only where no other draw set the mode (the workload's property "
        "dict, written into it, not run)",
    },
    "emulator/testing/sink_campaign.py": {
        "header.converter": "the sink campaign checks each key change's header in the form the workload's drawn "
        "property dict asked for (its own draw, written into the capture's configuration)",
    },
    "emulator/testing/parallel_order.py": {
        "snapshot.max.threads": "parallel_snapshot: how Debezium ordered a recording, read from the connector "
        "configuration recorded beside it (the differential harness, no emulator run)",
        "legacy.snapshot.max.threads": "parallel_snapshot: as snapshot.max.threads",
    },
    "emulator/worker.py": {
        "connector.class": "plugin_of: which plugin a body names, answered with Connect's 400 before validation",
        "name": "create: a body naming another connector than the URL is Connect's 400, before validation",
    },
}

_READERS = frozenset({"get", "int", "bool", "enum", "list", "regex_list", "str", "pop", "setdefault"})
_CONFIG_WORDS = ("config", "cfg", "conf", "props", "properties")
# a transform's or converter's own options (Options objects), which reuse some connector property names
_OPTION_RECEIVERS = frozenset({"opts", "self.opts", "options"})


def _is_property(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and property_spec(node.value) is not None
    ):
        return node.value
    return None


def _configish(node: ast.AST) -> bool:
    text = ast.unparse(node).lower()
    return any(word in text for word in _CONFIG_WORDS)


def raw_reads(source: str) -> list[tuple[int, str]]:
    """``(line, property)`` for each read of a property by name: ``x.get("p")`` (and the Config typed
    accessors), ``x["p"]`` and ``"p" in x``.  A dotted name is a property wherever it is read; a bare word
    (``name``, ``transforms``) only when read from something called config/cfg/props."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _READERS:
            receiver = node.func.value
            if ast.unparse(receiver) in _OPTION_RECEIVERS:
                continue
            if node.args and (name := _is_property(node.args[0])):
                if "." in name or _configish(receiver):
                    found.append((node.lineno, name))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            # an alias of a reader: get = config.get; get("tombstones.on.delete")
            if (name := _is_property(node.args[0])) and "." in name:
                found.append((node.lineno, name))
        elif (
            isinstance(node, ast.Subscript)
            and not isinstance(node.ctx, ast.Store)  # writing a property into a dict is not reading it
            and (name := _is_property(node.slice))
        ):
            if "." in name or _configish(node.value):
                found.append((node.lineno, name))
        elif (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.In | ast.NotIn)
        ):
            if (name := _is_property(node.left)) and ("." in name or _configish(node.comparators[0])):
                found.append((node.lineno, name))
    return sorted(found)


def _modules() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(OWNERS + HARNESS):
            continue
        allowed = RAW_BY_DESIGN.get(rel, {})
        reads = [(line, name) for line, name in raw_reads(path.read_text()) if name not in allowed]
        if reads:
            out[rel] = reads
    return out


def test_the_scan_finds_raw_reads() -> None:
    src = (
        "def f(config, props, cfg):\n"
        "    a = config.get('snapshot.mode')\n"
        "    b = props['slot.name']\n"
        "    c = 'tombstones.on.delete' in cfg.props\n"
        "    d = cfg.bool('name')\n"
        "    e = row.get('name')\n"
        "    f = config.get('not.a.property')\n"
        "    g = opts.enum('schema.name.adjustment.mode')\n"
        "    get = config.get\n"
        "    h = get('slot.drop.on.stop')\n"
        "    props['slot.name'] = 'x'\n"
    )
    assert raw_reads(src) == [
        (2, "snapshot.mode"),
        (3, "slot.name"),
        (4, "tombstones.on.delete"),
        (5, "name"),
        (10, "slot.drop.on.stop"),
    ]


def test_no_raw_config_reads_outside_settings() -> None:
    found = _modules()
    new = {m: reads[:3] for m, reads in found.items() if m not in TO_CONVERT}
    assert new == {}, "read typed settings (emulator.settings.settings_for) instead of the raw config"


def test_the_allow_list_only_shrinks() -> None:
    found = _modules()
    converted = sorted(m for m in TO_CONVERT if m not in found)
    assert converted == [], "these modules no longer read raw properties: remove them from TO_CONVERT"


def test_every_raw_by_design_read_is_still_there() -> None:
    unused = {
        (module, name)
        for module, names in RAW_BY_DESIGN.items()
        for name in names
        if name not in {n for _, n in raw_reads((ROOT / module).read_text())}
    }
    assert unused == set(), "no longer read raw: remove these from RAW_BY_DESIGN"
