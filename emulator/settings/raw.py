"""Config: the validated connector configuration as strings, with typed accessors that fall back to the
table's Debezium 3.6.3 default.  Code outside emulator/settings reads typed settings instead
(:func:`emulator.settings.settings_for`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from emulator.settings.checks import REMOVED_SNAPSHOT_MODES
from emulator.settings.errors import ConfigError, show_value
from emulator.settings.spec import (
    ALL,
    CLASS_ALIASES,
    CONNECTOR_CLASSES,
    CONNECTOR_SIMPLE_NAMES,
    INT_RANGES,
    LONG,
    MONGODB,
    PASSWORD,
    PropertySpec,
)
from emulator.settings.table import MONGO_LITERAL_LISTS, property_spec
from emulator.settings.values import compile_anchored, parse_bool, parse_int, regex_items


@dataclass
class Config:
    """A validated connector configuration.

    ``props`` holds the connector properties as strings (unknown ones included), after format translation;
    the typed accessors fall back to the Debezium 3.6.3 default of the configured connector.  The typed
    settings built from it (:func:`emulator.settings.settings_for`) are kept in the instance's ``__dict__``,
    not as a field, so ``dataclasses.replace`` (new props) starts anew and ``asdict`` never follows them.
    """

    props: dict[str, str]
    sink_type: str | None = None
    sink_props: dict[str, str] = field(default_factory=dict)
    source_format: str = "properties"
    raw: dict[str, str] = field(default_factory=dict)  # as written: config-provider references unresolved

    def __repr__(self) -> str:  # never a secret in a log line or a traceback
        shown = {k: ("********" if self._secret(k) else v) for k, v in self.props.items()}
        return f"Config(connector={self.connector!r}, props={shown!r})"

    def _secret(self, name: str) -> bool:
        spec = self.spec(name)
        sanitize = self.props.get("custom.sanitize.pattern")
        return (
            (spec is not None and spec.type == PASSWORD)
            # Debezium masks the keys this matches (Configuration.withMaskedPasswords, Java's matches(): the whole
            # key) instead of its password pattern; the emulator masks them on top of its own (a log only: no record)
            or (sanitize is not None and _full_match(sanitize, name))
            or "password" in name.lower()
            or (
                self.raw.get(name, self.props.get(name))
                != self.props.get(name)  # resolved by a config provider
            )
        )

    # -- identity

    @property
    def connector_class(self) -> str | None:
        return self.props.get("connector.class")

    @property
    def connector(self) -> str | None:
        """The connector kind: ``postgres``, ``mysql``, ``mariadb``, ``mongodb`` (``None`` if unknown)."""
        cls = self.props.get("connector.class")
        if cls is None:
            return None
        cls = cls.strip()
        return CONNECTOR_CLASSES.get(cls) or CONNECTOR_CLASSES.get(CLASS_ALIASES.get(cls, ""))

    def spec(self, name: str) -> PropertySpec | None:
        """The table row that applies to ``name`` for this connector, or ``None`` for an unknown property."""
        return property_spec(name, self.connector)

    # -- raw access

    def __contains__(self, name: object) -> bool:
        return name in self.props

    def get(self, name: str) -> str | None:
        """The configured value, or the declared default (``None`` when neither exists)."""
        if name in self.props:
            return self.props[name]
        spec = self.spec(name)
        return spec.default_for(self) if spec is not None else None

    def str(self, name: str) -> str | None:
        return self.get(name)

    def _require(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise ConfigError(f"{name}: no value is configured and the property has no default", name)
        return value

    def int(self, name: str) -> int:
        spec = self.spec(name)
        return parse_int(name, self._require(name), spec.type if spec and spec.type in INT_RANGES else LONG)

    def bool(self, name: str) -> bool:
        return parse_bool(name, self._require(name))

    def list(self, name: str) -> list[str]:
        """Comma-separated items, trimmed, empty items dropped (``[]`` when unset)."""
        value = self.get(name)
        if value is None:
            return []
        return [item.strip() for item in value.split(",") if item.strip()]

    def regex_list(self, name: str) -> list[re.Pattern[str]]:
        """Debezium-style regex list: anchored at both ends and case-insensitive (so ``match``, ``fullmatch``
        and ``search`` all mean "matches the whole name").  With MongoDB ``filters.match.mode=literal`` the
        database/collection lists are literal, case-sensitive names."""
        value = self.get(name)
        if value is None:
            return []
        items = regex_items(name, value)
        if (
            self.connector == MONGODB
            and name in MONGO_LITERAL_LISTS
            and self.enum("filters.match.mode") == "literal"
        ):
            return [re.compile(rf"\A{re.escape(item)}\Z") for item in items]
        return [compile_anchored(name, item) for item in items]

    def enum(self, name: str) -> str:
        """The lower-cased value, checked against the allowed values of the property."""
        value = self._require(name).strip().lower()
        spec = self.spec(name)
        if spec is not None and spec.allowed is not None and value not in spec.allowed:
            raise ConfigError(enum_message(self, name, value, spec), name)
        return value


def enum_message(config: Config, name: str, value: str, spec: PropertySpec) -> str:
    where = ""
    if len(spec.applies) < len(ALL) and config.connector is not None:
        where = f" for {CONNECTOR_SIMPLE_NAMES[config.connector]}"
    hint = ""
    if name == "snapshot.mode" and value in REMOVED_SNAPSHOT_MODES:
        hint = f" ('{value}' was removed in Debezium 3.0; use '{REMOVED_SNAPSHOT_MODES[value]}')"
    allowed = ", ".join(spec.allowed or ())
    return f"{name}: {show_value(value)} is not a valid value{where}{hint}; allowed values: {allowed}"


def _full_match(pattern: str, key: str) -> bool:
    try:
        return re.fullmatch(pattern, key) is not None
    except re.error:  # refused at start (settings.checks.check_sanitize_pattern)
        return True
