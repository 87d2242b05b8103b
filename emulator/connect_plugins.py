"""`GET /connector-plugins?connectorsOnly=false` beyond the connectors: the transformations, predicates, converters
and header converters this emulator accepts, as a Connect worker lists its installed ones (ConnectorPluginsResource:
transformations, then predicates, converters, header converters, each sorted by class name; a HeaderConverter that
is also a Converter appears in both lists). Each plugin's version is its `Versioned.version()` — Kafka's classes
the runtime's, Debezium's its release, Confluent's AvroConverter (not Versioned) "undefined", as PluginScanner
reports it (checked on the Kafka 4.3 / Debezium 3.6.3 / Confluent 7.0.16 jars, session 19). A worker lists every
plugin of its plugin path: this is the subset the emulator runs."""

from __future__ import annotations

from emulator.connect.converters import HEADER_SUPPORTED, SUPPORTED
from emulator.connect.transforms import PREDICATES, REGISTRY, load_families

UNDEFINED_VERSION = "undefined"  # Kafka's PluginDesc.UNDEFINED_VERSION


def _version(cls: str, kafka: str, debezium: str) -> str:
    if cls.startswith("org.apache.kafka."):
        return kafka
    if cls.startswith("io.debezium."):
        return debezium
    return UNDEFINED_VERSION


def other_plugins(kafka: str, debezium: str) -> list[dict[str, str]]:
    load_families()  # (the families register their classes when imported)
    groups = (
        ("transformation", REGISTRY),
        ("predicate", PREDICATES),
        ("converter", SUPPORTED),
        ("header_converter", HEADER_SUPPORTED),
    )
    return [
        {"class": c, "type": t, "version": _version(c, kafka, debezium)}
        for t, classes in groups
        for c in sorted(set(classes))
    ]
