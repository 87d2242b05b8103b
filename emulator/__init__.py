"""Debezium-identical change data capture without the JVM."""

DEBEZIUM_VERSION = "3.6.3.Final"
