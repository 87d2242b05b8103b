"""Chunk and maximum-key queries of incremental snapshots: what every SQL dialect's builder shares.

A chunk is the rows after the last key read and up to the table's maximum key (taken when the table's
snapshot starts), in key order, at most `incremental.snapshot.chunk.size` of them (Debezium's
ChunkQueryBuilder). An `additional-conditions` filter arrives as a checked Predicate and is rendered with
the driver's literal escaping (`literal`), never spliced from the signal's text. The connectors run the
queries (a read-only transaction, a consistent snapshot for read.only chunks); the builders only build them,
one module per dialect (`chunks_postgres`, `chunks_mysql`) so one database's driver is not imported by the
other's adapter.
"""

from __future__ import annotations

from collections.abc import Callable

Literal = Callable[[str], str]
