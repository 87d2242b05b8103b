"""Validation of a configuration against the property table: required properties, types, allowed and
supported values, unknown names (typos refused, Connect/worker pass-through accepted), cross-property
rules; :func:`from_dict` is the in-process entry.

Validation uses the data-driven table :data:`~emulator.settings.table.PROPERTIES` (name, type, Debezium 3.6.3
default, allowed values, required flag, connectors it applies to) and its audit
(:data:`~emulator.settings.audit._AUDIT`: what the emulator implements - a property or value Debezium would
apply but the emulator does not is refused at start, so no property is ever accepted and ignored;
docs/properties.md is generated from both). Kafka Connect worker, client and pass-through properties
(:data:`PASS_THROUGH_PREFIXES`) and other Debezium connectors' properties are kept untouched in
:attr:`~emulator.settings.raw.Config.props`, as Connect and Debezium accept them; any other unknown name is a
typo and refused with the closest known name (difflib).

Worker-level properties that users put in the same file are part of the table: ``offset.storage``,
``offset.storage.file.filename``, ``offset.flush.interval.ms`` (default 60000, the Kafka Connect worker
default and the Debezium embedded-engine/Debezium Server default), ``offset.flush.timeout.ms``, the
``key``/``value``/``header`` converters (the classes in ``DATA_CONVERTERS`` / ``HEADER_CONVERTERS``; the
header converter defaults to Connect's ``SimpleHeaderConverter``; Debezium Server defaults its header format
to JSON, so for that source format to ``JsonConverter``) and their options, which
:func:`emulator.connect.converters.build` checks (docs/converters.md).

Deliberate choices, each one a place where real Debezium behaves the same way:

* ``plugin.name`` defaults to ``decoderbufs`` in Debezium; the emulator only speaks ``pgoutput``, so an unset
  or ``decoderbufs`` ``plugin.name`` is an error that says so.
* snapshot modes are those of Debezium 3.x: ``never``, ``schema_only`` and ``schema_only_recovery`` were
  removed in 3.0 and are rejected with a hint at their replacement.
* ``skipped.operations`` accepts ``c, u, d, t`` and also ``r`` (Debezium 3.6 accepts it), or ``none`` alone.
* ``*.include.list``/``*.exclude.list`` are split like Debezium's ``RegExSplitter`` (``\\,`` is a literal
  comma) and compiled case-insensitively, anchored at both ends (Debezium uses ``Matcher.matches()``).
* a Connect JSON whose ``config.name`` differs from its top-level ``name`` is rejected, as Connect's REST
  API does.
"""

from __future__ import annotations

from collections.abc import Mapping

from emulator.settings.checks import JAVA_CLASS, TIME_PRECISION
from emulator.settings.custom_converters import SUPPORTED_CLASSES as CUSTOM_CONVERTER_CLASSES
from emulator.settings.errors import ConfigError, show_value
from emulator.settings.post_processors import owns as post_processor_owns
from emulator.settings.post_processors import problems as post_processor_problems
from emulator.settings.raw import Config, enum_message
from emulator.settings.spec import (
    BINLOG,
    BOOL,
    CLASS,
    CLASS_ALIASES,
    CONNECTOR_CLASSES,
    CONNECTOR_SIMPLE_NAMES,
    DOUBLE,
    ENUM,
    INT_RANGES,
    MONGODB,
    MYSQL,
    POSTGRES,
    REGEX_LIST,
    PropertySpec,
)
from emulator.settings.table import EXCLUSIVE_PAIRS, MONGO_LITERAL_LISTS, PROPERTIES, property_spec
from emulator.settings.values import DOUBLE_TEXT, compile_anchored, parse_bool, parse_int, regex_items


def stringify(name: str, value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        return ",".join(str(stringify(name, v)) for v in value if v is not None)
    raise ConfigError(
        f"{name}: a {type(value).__name__} is not a valid property value (expected a string)", name
    )


def from_dict(
    props: Mapping[str, object],
    *,
    source_format: str = "properties",
    sink_type: str | None = None,
    sink_props: Mapping[str, object] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Build and validate a :class:`Config` from connector properties (the in-process API).

    Non-string values are accepted (``True`` -> ``"true"``, ``5432`` -> ``"5432"``, lists are joined with
    commas); ``None`` values are dropped.  The typed settings are built here too (and kept on the Config), so
    the few values only a typed reading rejects are refused at every front door, before anything connects.
    Raises :class:`ConfigError`.
    """
    clean: dict[str, str] = {}
    for key, value in props.items():
        text = stringify(str(key), value)
        if text is not None:
            clean[str(key)] = text
    sinks: dict[str, str] = {}
    for key, value in (sink_props or {}).items():
        text = stringify(str(key), value)
        if text is not None:
            sinks[str(key)] = text
    from emulator.configproviders import resolve

    raw = dict(clean)
    clean = resolve(clean, environ)  # ${file:...}, ${env:...}, ${directory:...} (config.providers)
    config = Config(props=clean, sink_type=sink_type, sink_props=sinks, source_format=source_format, raw=raw)
    _validate(config)
    from emulator.settings import settings_for

    settings_for(config)
    return config


def _validate(config: Config) -> None:
    problems: list[tuple[str | None, str]] = []

    def fail(name: str | None, message: str) -> None:
        problems.append((name, message))

    props = config.props

    # connector.class first: everything else depends on it
    cls_raw = props.get("connector.class")
    if cls_raw is None or not cls_raw.strip():
        raise ConfigError(
            "connector.class: a value is required; allowed values: " + ", ".join(CONNECTOR_CLASSES),
            "connector.class",
        )
    cls = cls_raw.strip()
    cls = CLASS_ALIASES.get(cls, cls)
    if cls not in CONNECTOR_CLASSES:
        raise ConfigError(
            f"connector.class: unknown connector class {show_value(cls_raw)}; allowed values: "
            + ", ".join(CONNECTOR_CLASSES),
            "connector.class",
        )
    props["connector.class"] = cls
    kind = CONNECTOR_CLASSES[cls]

    # required properties (a blank value counts as missing, as in Debezium's Field.isRequired)
    for spec in PROPERTIES:
        if spec.required and kind in spec.applies and spec.name != "connector.class":
            value = props.get(spec.name)
            if value is None or not value.strip():
                fail(
                    spec.name,
                    f"{spec.name}: a value is required for {CONNECTOR_SIMPLE_NAMES[kind]} but none is configured",
                )

    # per-property type and value checks
    for name, value in props.items():
        spec = property_spec(name, kind)
        if spec is None:
            problem = _unknown_property(config, name, kind)
            if problem:
                fail(name, problem)
            continue
        if name == "connector.class":
            continue
        try:
            _check_value(config, name, value, spec)
        except ConfigError as exc:
            fail(name, str(exc))
            continue
        if kind in BINLOG and name == "time.precision.mode" and value.strip().lower() == "adaptive":
            continue  # reported below with the reason
        problem = _unsupported_value(name, value, spec)
        if problem:
            fail(name, problem)

    # cross-property rules
    for first, second in EXCLUSIVE_PAIRS:
        if (
            props.get(first) is not None
            and props.get(second) is not None
            and property_spec(first, kind) is not None
        ):
            fail(second, f"{second}: cannot be used together with {first}; configure only one of the two")

    def as_int(name: str) -> int | None:
        try:
            return config.int(name)
        except ConfigError:
            return None

    queue, batch = as_int("max.queue.size"), as_int("max.batch.size")
    if queue is not None and batch is not None and queue <= batch:
        fail(
            "max.queue.size",
            f"max.queue.size: {queue} must be larger than max.batch.size ({batch})",
        )

    if kind == POSTGRES:
        plugin = (config.get("plugin.name") or "").strip().lower()
        if plugin == "decoderbufs":
            origin = (
                "configured" if "plugin.name" in props else "Debezium's default when plugin.name is unset"
            )
            fail(
                "plugin.name",
                f"plugin.name: 'decoderbufs' ({origin}) is not supported by this emulator, "
                "which decodes the pgoutput protocol only; set plugin.name=pgoutput",
            )

    if (
        kind in BINLOG
        and "time.precision.mode" in props
        and props["time.precision.mode"].strip().lower() == "adaptive"
    ):
        fail(
            "time.precision.mode",
            "time.precision.mode: 'adaptive' is no longer supported by the MySQL and MariaDB connectors; "
            "allowed values: " + ", ".join(v for v in TIME_PRECISION if v != "adaptive"),
        )

    for mode_prop, name_prop in (
        ("snapshot.mode", "snapshot.mode.custom.name"),
        ("snapshot.locking.mode", "snapshot.locking.mode.custom.name"),
        ("snapshot.query.mode", "snapshot.query.mode.custom.name"),
    ):
        if props.get(mode_prop, "").strip().lower() == "custom" and not (props.get(name_prop) or "").strip():
            fail(name_prop, f"{name_prop}: a value is required when {mode_prop} is 'custom'")

    isolation = props.get("snapshot.isolation.mode", "").strip().lower()
    if kind == POSTGRES and isolation in ("read_committed", "read_uncommitted"):
        threads = (props.get("snapshot.max.threads") or "1").strip()
        if (
            threads.isdigit() and int(threads) > 1
        ):  # (one exported snapshot for every reader here: not recorded)
            fail(
                "snapshot.isolation.mode",
                f"snapshot.isolation.mode: {isolation!r} with snapshot.max.threads > 1 is not supported by this "
                "emulator (how Debezium's snapshot threads read outside one snapshot is not recorded)",
            )

    if kind == MONGODB:
        scope = props.get("capture.scope", "").strip().lower()
        if scope in ("database", "collection") and not (props.get("capture.target") or "").strip():
            fail("capture.target", f"capture.target: a value is required when capture.scope is '{scope}'")

    for converter in config.list("converters"):
        cls = (props.get(f"{converter}.type") or "").strip()
        if not cls:
            fail(
                f"{converter}.type",
                f"{converter}.type: a value is required for the custom converter '{converter}' listed in converters",
            )
        elif kind in BINLOG and cls not in CUSTOM_CONVERTER_CLASSES:
            fail(
                f"{converter}.type",
                f"{converter}.type: custom converter class {cls!r} is not supported by this emulator; supported: "
                + ", ".join(CUSTOM_CONVERTER_CLASSES),
            )

    if kind in (POSTGRES, MYSQL):  # the other connectors refuse post.processors itself (audit)
        for name, message in post_processor_problems(props):
            fail(name, message)

    for alias in config.list("transforms"):
        if not (props.get(f"transforms.{alias}.type") or "").strip():
            fail(
                f"transforms.{alias}.type",
                f"transforms.{alias}.type: a value is required for the transformation '{alias}' listed in transforms",
            )

    if problems:
        name, message = problems[0]
        if len(problems) > 1:
            others = ", ".join(dict.fromkeys(p for p, _ in problems[1:] if p and p != name))
            if others:
                message = f"{message} (also invalid: {others})"
        raise ConfigError(message, name, problems)


def _unsupported_value(name: str, value: str, spec: PropertySpec) -> str | None:
    """A value Debezium accepts but the emulator does not implement identically: refused at start."""
    if spec.supported is None or not value.strip():
        return None
    text = value.strip().lower()
    if text in spec.supported:
        return None
    if not spec.supported:
        return f"{name}: this property is not supported by this emulator; remove it (Debezium would apply it)"
    return f"{name}: {show_value(value.strip())} is not supported by this emulator; supported: " + ", ".join(
        spec.supported
    )


# Kafka Connect worker, client and pass-through properties: accepted as Connect accepts them. None of them
# changes the records (clients' settings, storage of offsets and configs, REST, security of the worker),
# or they are read where they matter (producer.*, offset.storage.*, topic.creation.*: emulator/outputs).
PASS_THROUGH_PREFIXES = (
    "producer.",
    "consumer.",
    "admin.",
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "transforms.",
    "predicates.",
    "errors.",
    "config.providers.",
    "offset.",
    "topic.creation.",
    "exactly.once.",
    "transaction.boundary",
    "schema.history.internal.",
    "database.history.",
    "signal.consumer.",
    "signal.producer.",
    "notification.",
    "driver.",
    "database.",
    "rest.",
    "listeners",
    "plugin.",
    "config.storage.",
    "status.storage.",
    "security.",
    "sasl.",
    "ssl.",
    "metric.",
    "metrics.",
    "worker.",
    "task.",
    "scheduled.rebalance.",
    "connections.max.",
    "internal.key.converter",
    "internal.value.converter",
    "access.control.",
    "response.http.",
    "topic.tracking.",
    "inter.worker.",
    "connector.client.config.",
    "client.",
    "reconnect.backoff.",
    "retry.backoff.",
    "request.timeout.ms",
    "session.timeout.ms",
    "rebalance.timeout.ms",
    "auto.include.jmx.reporter",
    "admin.listeners",
    "snapshot.collection.filter.overrides.",
)
PASS_THROUGH_NAMES = frozenset(
    {
        "bootstrap.servers",
        "group.id",
        "config.providers",
        "transactional.id",
        "config.action.reload",
        "header.converter",
        "key.converter",
        "value.converter",
        "offset.storage.topic",
        "heartbeat.interval.ms",
        "topic.creation.enable",
        "topic.creation.groups",
        "exactly.once.source.support",
    }
)


def _known_names(kind: str) -> list[str]:
    return sorted({s.name for s in PROPERTIES if s.pattern is None and kind in s.applies})


def _unknown_property(config: Config, name: str, kind: str) -> str | None:
    """A property that is not in the table for this connector: Connect/worker pass-through (accepted), a
    property of another Debezium connector (ignored by Debezium too: accepted), a custom converter's own
    settings, or a typo (refused, with the closest known name)."""
    import difflib

    known = _known_names(kind)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
    converters = {c.strip() for c in (config.props.get("converters") or "").split(",") if c.strip()}
    if name.split(".", 1)[0] in converters:
        return None
    if post_processor_owns(config.props, name):
        return None  # a post processor's own options: emulator.settings.post_processors reads them
    if property_spec(name) is not None:  # another connector's property: Debezium ignores it too
        return None
    passthrough = name in PASS_THROUGH_NAMES or name.startswith(PASS_THROUGH_PREFIXES)
    if passthrough:
        if name.startswith(("key.converter.", "value.converter.", "header.converter.")):
            return None  # the converter's own options: emulator.connect.converters.build checks them
        # a near-miss of a known name under a pass-through prefix (database.hostnme) is still a typo
        near = difflib.get_close_matches(name, known, n=1, cutoff=0.9)
        if not near:
            return None
        close = near
    where = CONNECTOR_SIMPLE_NAMES[kind]
    if close:
        return f"{name}: unknown property for {where}; did you mean {close[0]}?"
    return f"{name}: unknown property for {where} (not a Debezium 3.6 or Kafka Connect property)"


def _check_value(config: Config, name: str, value: str, spec: PropertySpec) -> None:
    type_ = spec.type
    if type_ in INT_RANGES:
        number = parse_int(name, value, type_)
        if spec.min is not None and number < spec.min:
            raise ConfigError(f"{name}: {number} is too small; the minimum is {spec.min}", name)
    elif type_ == DOUBLE:
        if not DOUBLE_TEXT.fullmatch(value.strip()):
            raise ConfigError(f"{name}: {show_value(value)} is not a number", name)
    elif type_ == BOOL:
        parse_bool(name, value)
    elif type_ == ENUM:
        text = value.strip().lower()
        if spec.allowed is not None and text not in spec.allowed:
            if name == "plugin.name":
                raise ConfigError(
                    f"plugin.name: {show_value(value)} is not a valid logical decoding plugin; this emulator supports "
                    "pgoutput only (Debezium also accepts decoderbufs)",
                    name,
                )
            raise ConfigError(enum_message(config, name, text, spec), name)
    elif type_ == REGEX_LIST:
        literal = (
            config.connector == MONGODB
            and name in MONGO_LITERAL_LISTS
            and (config.props.get("filters.match.mode") or "").strip().lower() == "literal"
        )
        for item in regex_items(name, value):
            if not literal:
                compile_anchored(name, item)
    elif type_ == CLASS:
        if not JAVA_CLASS.fullmatch(value.strip()):
            raise ConfigError(f"{name}: {show_value(value)} is not a Java class name", name)
    if spec.check is not None:
        problem = spec.check(config, value)
        if problem:
            raise ConfigError(f"{name}: {problem}", name)
