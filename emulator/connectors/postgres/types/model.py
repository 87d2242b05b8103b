"""The column's PostgreSQL type (`PgType`) and the handling modes that pick its mapping (`TypeConfig`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class TypeConfig:
    decimal_handling_mode: str = "precise"  # precise | double | string
    # adaptive | adaptive_time_microseconds | connect | microseconds | nanoseconds (isostring: refused)
    time_precision_mode: str = "adaptive"
    binary_handling_mode: str = "bytes"  # bytes | base64 | base64-url-safe | hex
    interval_handling_mode: str = "numeric"  # numeric | string
    hstore_handling_mode: str = "json"  # json | map
    money_fraction_digits: int = 2
    unavailable_value_placeholder: str = "__debezium_unavailable_value"
    include_unknown_datatypes: bool = False
    # event.converting.failure.handling.mode=fail: a value TableSchemaBuilder cannot put into the row stops the
    # capture instead of leaving the field null (`warn`, `skip`: identical records, only the log level differs)
    converting_fail: bool = False

    @classmethod
    def from_settings(cls, s: Any) -> TypeConfig:
        """The type modes of the connector's typed settings (emulator.settings.PostgresSettings)."""
        r, pg = s.relational, s.postgres
        return cls(
            r.decimal_handling_mode,
            r.time_precision_mode,
            r.binary_handling_mode,
            pg.interval_handling_mode,
            pg.hstore_handling_mode,
            pg.money_fraction_digits,
            r.unavailable_value_placeholder,
            pg.include_unknown_datatypes,
            s.errors.converting_failure_mode.strip().lower() == "fail",
        )


@dataclass(slots=True)
class PgType:
    oid: int
    name: str  # pg_type.typname, e.g. "int4", "_int4", "mood", "hstore"
    typtype: str  # pg_type.typtype: b base, e enum, d domain, r range, c composite, ...
    elem: PgType | None = None  # element type for arrays
    base: PgType | None = None  # base type for domains
    enum_labels: tuple[str, ...] = ()
    category: str = ""  # pg_type.typcategory
    typmod: int = -1  # pg_type.typtypmod (domains: the modifier declared on the domain)

    def is_array(self) -> bool:
        # int2vector/oidvector are category A too, but print as "1 2 3": only real "_xxx" arrays
        return self.elem is not None and self.name.startswith("_") and self.category in ("A", "")


Converter = Callable[[str], Any]
