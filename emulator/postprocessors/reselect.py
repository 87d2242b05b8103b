"""Debezium's ReselectColumnsPostProcessor (``post.processors``): columns of a streamed create or update that hold
the unavailable-value placeholder (an unchanged TOASTed value) or NULL are read again from the table by the
row's key, and the values read replace them in ``after``.

As Debezium 3.6.3 (``io.debezium.processors.reselect.ReselectColumnsPostProcessor``, applied by the
EventDispatcher's streaming receiver to each record after the transaction monitor, the metrics and the
incremental snapshot's window saw it, before transforms and converters):

* only records with an ``after`` that are not snapshot reads (``r``): creates and updates, the create half of a
  key change; deletes, tombstones, truncates and every snapshot read are left alone; ``before`` never changes;
* not the signal table; not a table without a key (the record key is no Struct);
* a column is read again when its value is the placeholder in the form its schema gives it (a string, the
  placeholder's bytes, ``{placeholder: placeholder}`` for a map or an hstore's JSON, an array holding one, or
  an int32/int64 array of the placeholder's signed bytes) with ``reselect.unavailable.values``, or NULL with
  ``reselect.null.values``, and the processor's column selector takes ``<schema>.<table>:<field>``;
* the row is found by the table's primary key (``reselect.use.event.key=true``: the record key's fields), the
  values taken from ``after`` as they are; a row not found or a failed query keeps the values and logs a
  warning (``reselect.error.handling.mode=fail``: the connector stops);
* a value read again is converted as a snapshot reads that column.

The choice is made once per table (:meth:`Reselector.wrap`): a table none of whose fields a processor can
select keeps every fast path; otherwise its creates and updates are built from row dicts and each pays one look at
its selected fields, and a query only when one of them needs it (its deletes, never touched, keep the fast paths:
the dispatcher's ``table_json_old`` and ``table_line_delete``).
"""

from __future__ import annotations

import base64
import decimal
import logging
from collections.abc import Callable
from typing import Any

from emulator.connect.schema import ARRAY, BYTES, INT32, INT64, MAP, STRING, STRUCT
from emulator.settings.post_processors import ReselectColumns

log = logging.getLogger("emulator.reselect")

_JSON = "io.debezium.data.Json"
_DECIMAL = "org.apache.kafka.connect.data.Decimal"
_VARIABLE_DECIMAL = "io.debezium.data.VariableScaleDecimal"


def _unscaled(b64: str, scale: int) -> decimal.Decimal:
    return decimal.Decimal(int.from_bytes(base64.b64decode(b64), "big", signed=True)).scaleb(-scale)


def bound_value(value: Any, schema: Any) -> Any:
    """The key value Debezium binds in its reselect query: the Connect value of the record's JSON form (a
    BigDecimal for a Decimal or VariableScaleDecimal, byte[] for plain bytes), the rest as it is."""
    if value is None or schema is None:
        return value
    if schema.type == BYTES and isinstance(value, str):
        if schema.name == _DECIMAL:
            return _unscaled(value, int((schema.parameters or {}).get("scale", 0)))
        return base64.b64decode(value) if schema.name is None else value
    if schema.type == STRUCT and schema.name == _VARIABLE_DECIMAL and isinstance(value, dict):
        return _unscaled(value["value"], int(value["scale"]))  # resolveKeyFieldValue
    return value


def placeholder_bytes(text: str) -> bytes:
    """``unavailable.value.placeholder`` as RelationalDatabaseConnectorConfig gives it: ``hex:`` then hex digits, or
    the text's UTF-8 bytes."""
    return bytes.fromhex(text[4:]) if text.startswith("hex:") else text.encode("utf-8")


class ReselectFailed(Exception):
    """The reselect query failed (Debezium's SQLException): logged, or the connector stops in ``fail`` mode."""


class Placeholder:
    """The unavailable-value placeholder in each form Debezium compares a field's value with."""

    def __init__(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace")  # new String(bytes)
        self.text = text
        self.b64 = base64.b64encode(raw).decode("ascii")  # a BYTES field's JSON-ready value
        self.map = {text: text}
        self.json = '{"' + text + '":"' + text + '"}'  # written as Debezium writes it, unescaped
        self.ints = [b - 256 if b > 127 else b for b in raw]  # Java's (int) of each signed byte

    def scalar(self, schema: Any) -> Callable[[Any], bool] | None:
        """isUnavailableValueHolder(schema, value) for one value, or None when that schema never holds it."""
        t = schema.type
        if t == BYTES:
            if schema.name is not None:  # a logical type (Decimal: a BigDecimal, never byte[])
                return None
            b64 = self.b64
            return lambda v: v == b64
        if t == MAP:
            m = self.map
            return lambda v: v == m
        if t == STRING:
            text = self.text
            if schema.name == _JSON:
                js = self.json
                return lambda v: v == text or v == js
            return lambda v: v == text
        return None

    def detector(self, schema: Any) -> Callable[[Any], bool] | None:
        """The field's test, None when its schema never holds the placeholder."""
        if schema.type != ARRAY:
            return self.scalar(schema)
        items = schema.items
        elem = self.scalar(items) if items is not None else None
        whole = self.ints if items is not None and items.type in (INT32, INT64) else None
        if elem is None and whole is None:
            return None

        def test(v: Any) -> bool:
            if v is None:
                return False
            if elem is not None:
                for x in v:
                    if elem(x):
                        return True
            return whole is not None and v == whole

        return test


class _Plan:
    """One processor on one table: the fields it may select, each with its placeholder test."""

    __slots__ = ("proc", "fields")

    def __init__(self, proc: ReselectColumns, fields: list[tuple[str, Callable[[Any], bool] | None]]) -> None:
        self.proc = proc
        self.fields = fields

    def wanted(self, after: dict) -> list[str]:
        unavailable = self.proc.unavailable_values
        nulls = self.proc.null_values
        out = []
        for name, test in self.fields:
            v = after.get(name)
            if unavailable and test is not None and test(v):
                out.append(name)
            elif nulls and v is None:
                out.append(name)
        return out


# reader(env, wanted fields, key fields, key values as bound_value gives them) -> {field: value} read again (snapshot conversion), or
# None when the row is not found; raises ReselectFailed when the query fails
Reader = Callable[[Any, list[str], list[str], list[Any]], "dict[str, Any] | None"]


class Reselector:
    """The configured processors of one connector, and the per-table wrapping of the record builder."""

    def __init__(
        self,
        processors: tuple[ReselectColumns, ...],
        placeholder: bytes,
        reader: Reader,
        primary_key: Callable[[Any], list[str]],
    ) -> None:
        self.processors = processors
        self.placeholder = Placeholder(placeholder)
        self.reader = reader
        self.primary_key = primary_key  # env -> the table's primary key columns (not message.key.columns)

    def plans(self, env: Any) -> list[_Plan]:
        """The processors that can select a field of this table (none: the table keeps every fast path)."""
        table = f"{env.table.namespace}.{env.table.name}:"
        out = []
        for proc in self.processors:
            if not (proc.unavailable_values or proc.null_values):
                continue
            fields = [
                (f.name, self.placeholder.detector(f.schema))
                for f in env.value_schema.fields or ()
                if proc.selects(table + f.name)
            ]
            if fields:
                out.append(_Plan(proc, fields))
        return out

    def applies(self, env: Any) -> bool:
        """Whether this table's creates and updates may be read again (then they are built from row dicts)."""
        return bool(env.key_names) and bool(self.plans(env))

    def wrap(self, env: Any, record: Callable[..., Any]) -> Callable[..., Any] | None:
        """`record` (op, before, after, source, block, key, headers) reselecting `after` first, or None when no
        processor can select a field of this table (or it has no key: Debezium needs the key Struct)."""
        plans = self.plans(env)
        if not plans or not env.key_names:
            return None
        reader = self.reader
        pk = self.primary_key
        where = f"{env.table.namespace}.{env.table.name}"
        # each key column's schema, from the value's fields and then the key's (a message.key.columns field)
        schemas = {f.name: f.schema for f in env.value_schema.fields or ()}
        if env.key_schema is not None:
            schemas.update((f.name, f.schema) for f in env.key_schema.fields or ())

        def reselect(after: dict, key: dict) -> dict:
            for plan in plans:
                wanted = plan.wanted(after)
                if not wanted:
                    continue
                if plan.proc.use_event_key:
                    cols = list(key)
                    values = [key[c] for c in cols]
                else:
                    cols = pk(env)
                    values = [after.get(c) for c in cols]
                bound = [bound_value(v, schemas.get(c)) for c, v in zip(cols, values)]
                try:
                    got = reader(env, wanted, cols, bound)
                except ReselectFailed as exc:
                    if plan.proc.fail:
                        raise RuntimeError(
                            f"Failed to re-select columns for table {where} and key {values}: {exc} "
                            "(reselect.error.handling.mode=fail); Debezium stops here too"
                        ) from exc
                    log.warning("Failed to re-select columns for table %s and key %s: %s", where, values, exc)
                    continue
                if got is None:
                    if plan.proc.fail:
                        raise RuntimeError(
                            f"Failed to find row in table {where} with key {key} "
                            "(reselect.error.handling.mode=fail); Debezium stops here too"
                        )
                    log.warning("Failed to find row in table %s with key %s.", where, key)
                    continue
                after = {**after, **got}
            return after

        def change(op, before, after, source, block, key, headers=None):
            if after is not None and op != "r":
                after = reselect(after, key)
            return record(op, before, after, source, block, key, headers)

        return change
