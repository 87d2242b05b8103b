"""`event.processing.failure.handling.mode=warn|skip` on the MySQL/MariaDB connector: a row whose value
Debezium cannot convert (`types.EventConversionError`: a required Connect TIME outside a day) is dropped,
the other rows of its event and of the snapshot go on.

Debezium converts each row inside `EventDispatcher.dispatchDataChangeEvent` (stream) and the snapshot's
dispatch, whose failure handler stops the connector with `fail` and logs (`warn`) or not (`skip`) and drops
that one row otherwise (recorded: mariadb cases processing_failure_*: the row is missing, the
next row of the same rows event keeps its `row` number, a snapshot's previous row takes the `last` marker).
With `fail` (the default) nothing here is used: the error stops the capture as before."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from emulator.connectors.mysql.row_decoders import compile_row_decoders
from emulator.connectors.mysql.types import EventConversionError

log = logging.getLogger("emulator.mysql")


def dropping_parser(parse: Callable[[bytes], dict], warn: bool, table: str) -> Callable[[bytes], dict | None]:
    """A snapshot row parser that returns None (textrows.stream_rows drops the row) where `parse` fails."""

    def parse_or_drop(data: bytes) -> dict | None:
        try:
            return parse(data)
        except EventConversionError as e:
            _report(warn, table, e)
            return None

    parse_or_drop.drops_rows = True  # type: ignore[attr-defined]
    return parse_or_drop


class _Dropped(dict):
    """The images of a dropped row: empty row dicts the stream's loop handles like any row (null fill, row
    number) and `change` ignores, so that loop, the hot path of every row, has no test for them."""


def decode_dropping(
    ct: Any, entry: Any, op: str, body: bytes, p: int, end: int, warn: bool, change: Callable
) -> tuple[list, Callable]:
    """The rows of one rows event from `p` to `end` as (before, after) pairs, and the change function to
    dispatch them with: a row that cannot be converted is read again without converters, only to find
    where the next row starts, and stands as a pair of `_Dropped` that the returned function ignores."""
    raw = _raw_decoders(ct, entry)
    rows: list = []
    while p < end:
        start = p
        try:
            if op == "u":
                before, after, p = entry.dec2(body, p)
            elif op == "c":
                before = None
                after, p = entry.dec(body, p)
            else:
                after = None
                before, p = entry.dec(body, p)
            rows.append((before, after))
        except EventConversionError as e:
            _report(warn, ct.data_collection, e)
            p = raw[1](body, start)[2] if op == "u" else raw[0](body, start)[1]
            rows.append((_Dropped(), _Dropped()))

    def change_or_drop(op: str, before: Any, after: Any, block: Any, tx_id: Any) -> Any:
        if after.__class__ is _Dropped:
            return None
        return change(op, before, after, block, tx_id)

    return rows, change_or_drop


def _raw_decoders(ct: Any, entry: Any) -> tuple[Callable, Callable]:
    """The table map's decoders without value conversion (cached beside the converting ones)."""
    key = (b"raw", entry.tm.key)
    decs = ct.decoders.get(key)
    if decs is None:
        tm = entry.tm
        n = len(tm.types)
        decs = ct.decoders[key] = compile_row_decoders(tm, [(f"c{i}", None) for i in range(n)])
    return decs


def _report(warn: bool, table: str, e: Exception) -> None:
    if warn:
        log.warning(
            "Error while processing event of %s, skipped (event.processing.failure.handling.mode): %s",
            table,
            e,
        )
    else:
        log.debug("Error while processing event of %s, skipped: %s", table, e)
