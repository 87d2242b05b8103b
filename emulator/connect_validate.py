"""Kafka Connect's configuration validation for the REST worker: `ConfigInfos` / `ConfigKeyInfo` bodies
(`PUT /connector-plugins/{p}/config/validate`, `GET /connector-plugins/{p}/config`) built from the
emulator's property table (`emulator.config.PROPERTIES`) and its validation (`from_dict`), plus the
connection check Debezium's `validate()` adds.

The definitions are the emulator's: every property it accepts for the plugin, with Connect's type names;
the documentation, importance and width Debezium's ConfigDef carries are not reproduced.
"""

from __future__ import annotations

from typing import Any

from emulator.config import CONNECTOR_CLASSES, PROPERTIES, ConfigError, from_dict, property_spec

# our table's types -> ConfigDef.Type names
_TYPES = {
    "string": "STRING",
    "password": "PASSWORD",
    "int": "INT",
    "short": "SHORT",
    "long": "LONG",
    "double": "DOUBLE",
    "bool": "BOOLEAN",
    "enum": "STRING",
    "list": "LIST",
    "regex-list": "LIST",
    "class": "CLASS",
}
# Kafka Connect's ConnectorConfig groups
_COMMON = {"name", "connector.class", "tasks.max", "key.converter", "value.converter", "header.converter"}
_GROUPS = ("Common", "Transforms", "Predicates", "Error Handling", "Connector")


def plugin_class(name: str) -> str | None:
    """A plugin's class from its full class name, simple name or alias (simple name without
    `Connector`), as Connect resolves plugin names."""
    for cls in CONNECTOR_CLASSES:
        simple = cls.rsplit(".", 1)[1]
        if name in (cls, simple, simple[: -len("Connector")]):
            return cls
    return None


def _group(name: str) -> str:
    if name in _COMMON:
        return "Common"
    if name.startswith("transforms"):
        return "Transforms"
    if name.startswith("predicates"):
        return "Predicates"
    if name.startswith("errors."):
        return "Error Handling"
    return "Connector"


def _specs(cls: str):
    kind = CONNECTOR_CLASSES[cls]
    seen = set()
    for spec in PROPERTIES:
        if kind in spec.applies and spec.pattern is None and spec.name not in seen:
            seen.add(spec.name)
            yield spec


def _definition(spec, order: int) -> dict[str, Any]:
    default = spec.default if isinstance(spec.default, str) else None
    return {
        "name": spec.name,
        "type": _TYPES.get(spec.type, "STRING"),
        "required": bool(spec.required),
        "default_value": default,
        "importance": "HIGH" if spec.required else "MEDIUM",
        "documentation": "",
        "group": _group(spec.name),
        "order": order,
        "width": "NONE",
        "display_name": spec.name,
        "dependents": [],
    }


def config_keys(cls: str) -> list[dict[str, Any]]:
    """`GET /connector-plugins/{p}/config`: a list of ConfigKeyInfo."""
    return [_definition(spec, i) for i, spec in enumerate(_specs(cls), 1)]


def validate(cls: str, props: dict[str, str], *, connect: bool = True) -> dict[str, Any]:
    """ConfigInfos for `props`: every property's definition and value, with the errors our validation and
    (when the configuration is otherwise valid and `connect`) the connection check found."""
    errors: dict[str, list[str]] = {}
    config = None
    # `props` is the request's own dict: the plugin it names and its `name` as sent are read raw (the typed
    # settings exist only once validation succeeded; a blank name is Connect's error, not unset)
    try:
        config = from_dict(
            {**props, "connector.class": props.get("connector.class") or cls}, source_format="connect-json"
        )
    except ConfigError as e:
        for prop, message in e.problems:
            errors.setdefault(prop or "connector.class", []).append(message)
    except ValueError as e:
        errors.setdefault("connector.class", []).append(str(e))
    name = props.get("name")
    if name is not None:
        problem = name_problem(name)
        if problem:
            errors.setdefault("name", []).append(f"Invalid value {name} for configuration name: {problem}")
    if config is not None and not errors:
        from emulator.connect import dataplane

        try:  # transforms, predicates and converters: their options are part of the configuration
            dataplane.build(config)
        except ConfigError as e:
            for prop, message in e.problems:
                errors.setdefault(prop or "transforms", []).append(message)
    if config is not None and not errors and connect:
        from emulator.connect_check import problem as connect_problem

        found = connect_problem(config)
        if found is not None:
            errors.setdefault(found[0], []).append(found[1])
    configs = []
    listed = set()
    kind = CONNECTOR_CLASSES[cls]
    for i, spec in enumerate(_specs(cls), 1):
        listed.add(spec.name)
        configs.append(_config_info(_definition(spec, i), spec, props, errors.get(spec.name, [])))
    # properties with errors the table has no plain row for (templated names, misspellings)
    for prop, errs in errors.items():
        if prop not in listed:
            spec = property_spec(prop, kind)
            definition = (
                {**_definition(spec, 0), "name": prop}
                if spec is not None
                else {
                    "name": prop,
                    "type": "STRING",
                    "required": False,
                    "default_value": None,
                    "importance": "LOW",
                    "documentation": "",
                    "group": "Connector",
                    "order": 0,
                    "width": "NONE",
                    "display_name": prop,
                    "dependents": [],
                }
            )
            configs.append(_config_info(definition, spec, props, errs))
    return {
        "name": cls,
        "error_count": sum(1 for c in configs if c["value"]["errors"]),
        "groups": list(_GROUPS),
        "configs": configs,
    }


def _config_info(definition: dict[str, Any], spec, props: dict[str, str], errs: list[str]) -> dict[str, Any]:
    name = definition["name"]
    value = props.get(name, definition["default_value"])
    if spec is not None and spec.type == "password" and value is not None:
        value = "[hidden]"  # as Connect prints Password values
    return {
        "definition": definition,
        "value": {
            "name": name,
            "value": value,
            "recommended_values": list(spec.allowed) if spec is not None and spec.allowed else [],
            "errors": list(errs),
            "visible": True,
        },
    }


def error_message(infos: dict[str, Any]) -> str:
    """Connect's 400 message for an invalid configuration (AbstractHerder.validateConnectorConfig)."""
    lines = [
        f"Connector configuration is invalid and contains the following {infos['error_count']} error(s):"
    ]
    for c in infos["configs"]:
        lines.extend(c["value"]["errors"])
    lines.append(
        "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/{connectorType}/config/validate`"
    )
    return "\n".join(lines)


MAX_NAME = 249  # longer names cannot be Kafka client ids / file names with room to spare


def name_problem(name: str) -> str | None:
    """Connect's `NonEmptyStringWithoutControlChars` for `name`, plus what a name must not be here: it names
    files under the state and output directories, so no path separators, `.`/`..`, or overlong names."""
    if name == "" or not name.strip():
        return "String may not be empty"
    controls = [ord(c) for c in name if ord(c) < 32 or 127 <= ord(c) < 160]
    if controls:
        return "String may not contain control sequences but had the following ASCII chars: " + ", ".join(
            map(str, controls)
        )
    if "/" in name or "\\" in name:
        return "String may not contain '/' or '\\'"
    if name.strip() in (".", ".."):
        return "String may not be '.' or '..'"
    if len(name) > MAX_NAME:
        return f"String may not be longer than {MAX_NAME} characters"
    return None
