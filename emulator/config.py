"""Connector configuration: the same properties users give Debezium 3.6.3, in any of the three usual files.

This module re-exports :mod:`emulator.settings` (where the code now lives: ``spec``/``checks``/``table`` the
property table, ``audit`` what the emulator implements, ``raw`` :class:`Config`, ``validate``, ``load``,
``properties``) so ``from emulator.config import Config, ConfigError, load_config, ...`` keeps working while
other branches move to typed settings (:func:`emulator.settings.settings_for`).  Any other name of the
former module is served by ``__getattr__``.  New code imports from ``emulator.settings``.
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
