"""Configuration files: Java .properties, Kafka Connect JSON and Debezium Server application.properties,
detected from the content, translated to connector properties and validated.

Accepted inputs (detected from the content, see :func:`load_config`):

* a Java ``.properties`` file, parsed with ``java.util.Properties.load`` semantics (:func:`parse_properties`):
  ``=``/``:``/whitespace separators, ``#``/``!`` comments, ``\\`` line continuations, ``\\uXXXX`` (surrogate
  pairs are combined), ``\\t \\n \\r \\f`` and ``\\x`` -> ``x``. Files are read as UTF-8 when they decode as
  UTF-8 and as ISO-8859-1 otherwise, so both a Latin-1 file written for the JVM and a modern UTF-8 file give
  the characters their author meant;
* a Kafka Connect connector JSON, ``{"name": ..., "config": {...}}`` (the REST ``POST /connectors`` body) or
  the bare config object (the ``PUT /connectors/<name>/config`` body).  Numbers and booleans are accepted and
  turned into strings like Connect's Jackson mapping does;
* a Debezium Server ``application.properties`` (any ``debezium.source.*`` or ``debezium.sink.type`` key):
  ``debezium.source.X`` -> ``X``; ``debezium.sink.type`` -> :attr:`~emulator.settings.raw.Config.sink_type`;
  ``debezium.sink.<type>.X`` -> :attr:`~emulator.settings.raw.Config.sink_props` ``X``;
  ``debezium.format.{key,value,header}`` (``json``/``jsonbytearray``, ``cloudevents``, ``simplestring``,
  ``binary``; headers ``json``) -> the ``{key,value,header}.converter`` class (see ``_SERVER_FORMATS``) and
  ``debezium.format.<part>.X`` -> ``<part>.converter.X`` (so ``debezium.format.value.schemas.enable`` becomes
  ``value.converter.schemas.enable``); ``debezium.transforms*`` / ``debezium.predicates*`` lose the
  ``debezium.`` prefix.  Quarkus ``${ENV}`` / ``${ENV:default}`` references are expanded from the environment.
  Quarkus profile keys (``%dev.…``) and other ``debezium.*`` / ``quarkus.*`` keys are ignored."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from emulator.settings.errors import ConfigError, show_value
from emulator.settings.properties import decode_properties_text, parse_properties
from emulator.settings.raw import Config
from emulator.settings.spec import (
    BYTE_ARRAY_CONVERTER,
    CLOUDEVENTS_CONVERTER,
    JSON_CONVERTER,
    STRING_CONVERTER,
)
from emulator.settings.validate import from_dict, stringify

_SERVER_SOURCE = "debezium.source."
_SERVER_SINK = "debezium.sink."
_SERVER_FORMAT = "debezium.format."
# Debezium Server's debezium.format.* -> converter class (avro there is Apicurio's converter: not emulated)
_SERVER_FORMATS = {
    "json": JSON_CONVERTER,
    "jsonbytearray": JSON_CONVERTER,
    "cloudevents": CLOUDEVENTS_CONVERTER,
    "simplestring": STRING_CONVERTER,
    "binary": BYTE_ARRAY_CONVERTER,
}
_SERVER_FORMATS_SUPPORTED = tuple(_SERVER_FORMATS)
_ENV_REF = re.compile(r"\$\{([^}:]*)(?::([^}]*))?\}")


def _expand_env(
    key: str, value: str, environ: Mapping[str, str], providers: frozenset[str] = frozenset()
) -> str:
    """Quarkus/SmallRye ``${NAME}`` and ``${NAME:default}`` expressions; ``${alias:...}`` of a configured
    Kafka config provider (``debezium.source.config.providers``) is left for the provider."""
    if "${" not in value:
        return value

    def repl(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in providers and default is not None:
            return match.group(0)
        for candidate in (name, re.sub(r"[^A-Za-z0-9]", "_", name).upper()):
            if candidate in environ:
                return environ[candidate]
        if default is not None:
            return default
        raise ConfigError(
            f"{key}: cannot expand ${{{name}}}: no such environment variable and no default", key
        )

    return _ENV_REF.sub(repl, value)


def _from_debezium_server(
    raw: Mapping[str, str], environ: Mapping[str, str] | None = None
) -> tuple[dict[str, str], str | None, dict[str, str]]:
    env = os.environ if environ is None else environ
    props: dict[str, str] = {}
    sink_type: str | None = None
    formats: dict[str, str] = {}
    format_props: dict[str, str] = {}
    sink_candidates: dict[str, str] = {}
    providers = frozenset(
        a.strip() for a in (raw.get(_SERVER_SOURCE + "config.providers") or "").split(",") if a.strip()
    )
    for key, value in raw.items():
        if key.startswith("%"):
            continue  # Quarkus profile-specific keys
        value = _expand_env(key, value, env, providers)
        if key.startswith(_SERVER_SOURCE):
            props[key[len(_SERVER_SOURCE) :]] = value
        elif key == "debezium.sink.type":
            sink_type = value.strip() or None
        elif key.startswith(_SERVER_SINK):
            sink_candidates[key[len(_SERVER_SINK) :]] = value
        elif key.startswith(_SERVER_FORMAT):
            rest = key[len(_SERVER_FORMAT) :]
            part, _, sub = rest.partition(".")
            if part not in ("key", "value", "header"):
                continue
            if sub:
                format_props[f"{part}.converter.{sub}"] = value
            else:
                formats[part] = value
        elif key in ("debezium.transforms", "debezium.predicates") or key.startswith(
            ("debezium.transforms.", "debezium.predicates.")
        ):
            props[key[len("debezium.") :]] = value
    for part, fmt in formats.items():
        if fmt.strip().lower() not in _SERVER_FORMATS_SUPPORTED:
            name = f"debezium.format.{part}"
            raise ConfigError(
                f"{name}: format {show_value(fmt.strip())} is not supported by this emulator; supported: "
                + ", ".join(_SERVER_FORMATS_SUPPORTED),
                name,
            )
        if part == "header" and fmt.strip().lower() not in ("json", "jsonbytearray"):
            name = "debezium.format.header"
            raise ConfigError(
                f"{name}: format {show_value(fmt.strip())} is not supported for headers; supported: json",
                name,
            )
        props[f"{part}.converter"] = _SERVER_FORMATS[fmt.strip().lower()]
    props.update(format_props)
    sink_props: dict[str, str] = {}
    if sink_type:
        prefix = sink_type + "."
        sink_props = {k[len(prefix) :]: v for k, v in sink_candidates.items() if k.startswith(prefix)}
    return props, sink_type, sink_props


def _from_connect_json(obj: object, origin: str) -> dict[str, str]:
    if not isinstance(obj, dict):
        raise ConfigError(f"{origin}: expected a JSON object with the connector configuration")
    if isinstance(obj.get("config"), dict):
        raw_config: dict[str, object] = obj["config"]
        top_name = obj.get("name")
    else:
        raw_config = obj
        top_name = None
    props: dict[str, str] = {}
    for key, value in raw_config.items():
        if isinstance(value, dict | list):
            raise ConfigError(
                f"{key}: a JSON {'object' if isinstance(value, dict) else 'array'} is not a valid value; Connect configuration values are strings",
                key,
            )
        text = stringify(key, value)
        if text is not None:
            props[key] = text
    if top_name is not None:
        if isinstance(top_name, dict | list):
            raise ConfigError(f"name: the connector name must be a string in {origin}", "name")
        name = stringify("name", top_name) or ""
        if "name" in props and props["name"] != name:
            raise ConfigError(
                f"name: connector name configuration ({show_value(props['name'])}) doesn't match the connector name "
                f"({show_value(name)})",
                "name",
            )
        props["name"] = name
    return props


def _is_debezium_server(raw: Mapping[str, str]) -> bool:
    return any(key.startswith(_SERVER_SOURCE) or key == "debezium.sink.type" for key in raw)


def load_config_text(
    text: str, *, origin: str = "<config>", environ: Mapping[str, str] | None = None
) -> Config:
    """Detect the format of ``text`` (JSON object, Debezium Server properties, or connector properties),
    translate it and validate it.  ``environ`` replaces ``os.environ`` for Debezium Server ``${...}`` references."""
    if text.startswith("\ufeff"):
        text = text[1:]
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            obj = json.loads(text, parse_int=str, parse_float=str, parse_constant=str)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{origin}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            ) from None
        return from_dict(_from_connect_json(obj, origin), source_format="connect-json", environ=environ)
    raw = parse_properties(text)
    if _is_debezium_server(raw):
        props, sink_type, sink_props = _from_debezium_server(raw, environ)
        return from_dict(
            props,
            source_format="debezium-server",
            sink_type=sink_type,
            sink_props=sink_props,
            environ=environ,
        )
    return from_dict(raw, source_format="properties", environ=environ)


def load_config(path: str | Path, *, environ: Mapping[str, str] | None = None) -> Config:
    """Read a configuration file in any of the three formats, translate it and validate it.

    Raises :class:`ConfigError` (one line) for unreadable files, syntax errors and invalid properties.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the configuration file: {exc.strerror or exc}") from None
    return load_config_text(decode_properties_text(data), origin=str(p), environ=environ)
