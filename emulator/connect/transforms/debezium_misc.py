"""Debezium's smaller transforms (HeaderToValue, TimezoneConverter, SchemaChangeEventFilter)."""

from __future__ import annotations
