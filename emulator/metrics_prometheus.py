"""Connector metrics in Prometheus' text format, named as the Prometheus JMX exporter names Debezium's
MBeans with the rules of Debezium's own monitoring example (debezium-examples `monitoring/`):

    debezium.postgres<type=connector-metrics, context=streaming, server=dbserver1><>MilliSecondsBehindSource
      -> debezium_metrics_MilliSecondsBehindSource{context="streaming",name="dbserver1",plugin="postgres"}
    ...<>RowsScanned (a map keyed by table)
      -> debezium_metrics_RowsScanned{context="snapshot",name="dbserver1",plugin="postgres",table="public.t"}

Only numeric and boolean attributes are exported (the JMX exporter skips strings and arrays); booleans are
1/0 and every sample is untyped, as the exporter writes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prometheus_client.core import CollectorRegistry, UnknownMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from emulator.metrics import ConnectorMetrics

PREFIX = "debezium_metrics_"
CONTENT_TYPE = CONTENT_TYPE_LATEST


class DebeziumCollector:
    def __init__(self, sources: Callable[[], Iterable[ConnectorMetrics]]) -> None:
        self.sources = sources

    def collect(self):
        families: dict[str, UnknownMetricFamily] = {}

        def family(attr: str, labels: list[str]) -> UnknownMetricFamily:
            fam = families.get(attr)
            if fam is None:
                fam = families[attr] = UnknownMetricFamily(
                    PREFIX + attr, f"Debezium connector-metrics attribute {attr}", labels=labels
                )
            return fam

        for m in self.sources():
            for context, attrs in m.as_dict().items():
                base = [context, m.server, m.plugin]
                for attr, value in attrs.items():
                    if attr == "RowsScanned":
                        fam = family(attr, ["context", "name", "plugin", "table"])
                        for table, rows in sorted(value.items()):
                            fam.add_metric([*base, table], float(rows))
                    elif isinstance(value, bool):
                        family(attr, ["context", "name", "plugin"]).add_metric(base, 1.0 if value else 0.0)
                    elif isinstance(value, int | float):
                        family(attr, ["context", "name", "plugin"]).add_metric(base, float(value))
        yield from families.values()


def registry_for(sources: Callable[[], Iterable[ConnectorMetrics]]) -> CollectorRegistry:
    reg = CollectorRegistry(auto_describe=False)
    reg.register(DebeziumCollector(sources))
    return reg


def exposition(registry: CollectorRegistry) -> bytes:
    return generate_latest(registry)
