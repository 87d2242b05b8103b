"""Connector configuration: the same properties users give Debezium 3.6.3, in any of the three usual files.

This module re-exports :mod:`emulator.settings` (where the code now lives: ``spec``/``checks``/``table`` the
property table, ``audit`` what the emulator implements, ``raw`` :class:`Config`, ``validate``, ``load``,
``properties``) so ``from emulator.config import Config, ConfigError, load_config, ...`` keeps working while
other branches move to typed settings (:func:`emulator.settings.settings_for`).  Any other name of the
former module is served by ``__getattr__``.  New code imports from ``emulator.settings``.

Accepted inputs (detected from the content, see :func:`load_config`):

* a Java ``.properties`` file, parsed with ``java.util.Properties.load`` semantics
  (:func:`parse_properties`): ``=``/``:``/whitespace separators, ``#``/``!`` comments, ``\\``
  line continuations, ``\\uXXXX`` (surrogate pairs are combined), ``\\t \\n \\r \\f`` and ``\\x`` -> ``x``.
  Files are read as UTF-8 when they decode as UTF-8 and as ISO-8859-1 otherwise, so both a Latin-1 file
  written for the JVM and a modern UTF-8 file give the characters their author meant;
* a Kafka Connect connector JSON, ``{"name": ..., "config": {...}}`` (the REST ``POST /connectors`` body) or
  the bare config object (the ``PUT /connectors/<name>/config`` body).  Numbers and booleans are accepted
  and turned into strings like Connect's Jackson mapping does;
* a Debezium Server ``application.properties`` (any ``debezium.source.*`` or ``debezium.sink.type`` key):
  ``debezium.source.X`` -> ``X``; ``debezium.sink.type`` -> :attr:`Config.sink_type`;
  ``debezium.sink.<type>.X`` -> :attr:`Config.sink_props` ``X``; ``debezium.format.{key,value,header}``
  (``json``/``jsonbytearray``, ``cloudevents``, ``simplestring``, ``binary``; headers ``json``) -> the
  ``{key,value,header}.converter`` class (see ``_SERVER_FORMATS``) and
  ``debezium.format.<part>.X`` -> ``<part>.converter.X`` (so ``debezium.format.value.schemas.enable`` becomes
  ``value.converter.schemas.enable``); ``debezium.transforms*`` / ``debezium.predicates*`` lose the
  ``debezium.`` prefix.  Quarkus ``${ENV}`` / ``${ENV:default}`` references are expanded from the
  environment.  Quarkus profile keys (``%dev.…``) and other ``debezium.*`` / ``quarkus.*`` keys are ignored.

Validation uses the data-driven table :data:`PROPERTIES` (name, type, Debezium 3.6.3 default, allowed
values, required flag, connectors it applies to) and its audit (:data:`_AUDIT`: what the emulator
implements - a property or value Debezium would apply but the emulator does not is refused at start, so no
property is ever accepted and ignored; docs/properties.md is generated from both).  Kafka Connect worker,
client and pass-through properties (:data:`_PASS_THROUGH_PREFIXES`) and other Debezium connectors'
properties are kept untouched in :attr:`Config.props`, as Connect and Debezium accept them; any other
unknown name is a typo and refused with the closest known name (difflib).

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

import importlib
from typing import Any

from emulator.settings.audit import IMPLEMENTED, NO_EFFECT, REFUSED, status_of
from emulator.settings.errors import ConfigError
from emulator.settings.load import load_config, load_config_text
from emulator.settings.properties import parse_properties
from emulator.settings.raw import Config
from emulator.settings.spec import CONNECTOR_CLASSES, PropertySpec
from emulator.settings.table import PROPERTIES, property_spec
from emulator.settings.validate import from_dict

__all__ = [
    "CONNECTOR_CLASSES",
    "IMPLEMENTED",
    "NO_EFFECT",
    "PROPERTIES",
    "REFUSED",
    "Config",
    "ConfigError",
    "PropertySpec",
    "from_dict",
    "load_config",
    "load_config_text",
    "parse_properties",
    "property_spec",
    "status_of",
]

# where the former module's other names live now, searched in this order
_MODULES = ("spec", "errors", "checks", "table", "audit", "values", "raw", "validate", "properties", "load")


def __getattr__(name: str) -> Any:
    for module in _MODULES:
        found = importlib.import_module(f"emulator.settings.{module}")
        if name in vars(found):
            return vars(found)[name]
    raise AttributeError(f"module 'emulator.config' has no attribute {name!r}")
