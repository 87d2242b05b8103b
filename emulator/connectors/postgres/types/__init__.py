"""PostgreSQL column types -> Kafka Connect schemas and text -> JSON-ready value converters (a package,
split by type family: `model`, `encoders`, `numeric`, `temporal`, `interval`, `binary`, `arrays`, `hstore`,
`geometric`, `schemas`, the type table `mappings`, `toast`, `defaults`, `columns`, `source_type`).

Mirrors Debezium's `PostgresValueConverter` (+ `JdbcValueConverters`, `PostgresDefaultValueConverter`)
for the pgoutput *text* representation of values, i.e. what pgoutput sends in text mode and what a
text-format query or `COPY ... TO STDOUT` returns. A converter takes that `str` (never None: NULL is
handled by the caller) and returns the value exactly as Kafka Connect's JsonConverter prints it:
bytes and Decimals as base64 text, float specials as "NaN"/"Infinity"/"-Infinity", structs as dicts
in field order, arrays as lists.

Everything that depends only on the column (type, typmod, handling modes) is decided once in
`column_def`; the returned converter is a small closure picked from data-driven tables.

Debezium 3.6.3 behaviours reproduced on purpose (checked against real Debezium output, see the tests):
* numeric NaN/Infinity -> null in `precise` mode; "NAN"/"POSITIVE_INFINITY"/"NEGATIVE_INFINITY" in
  `string` mode (SpecialValueDecimal enum names), where values are BigDecimal.toPlainString();
  float specials in `double` mode.
* timestamp `infinity`/`-infinity` -> the pgjdbc sentinels 9223372036825200000 / -9223372036832400000
  read as *microseconds* (millisecond columns: the same divided by 1000); timestamptz -> the strings.
* date `infinity`/`-infinity`: pgoutput -> epoch days of Debezium's LocalDates -5877611-06-21/-22
  (-2147472692 / -2147472691); the JDBC snapshot and array elements -> -622191234 / -625821272.
  `column_def_ex` returns the snapshot converter separately (also for `name`, null when streamed).
* timetz is shifted to UTC modulo one day (`24:00:00+00` -> "00:00:00Z").
* hstore keys come out in Java `HashMap` iteration order (pgjdbc's HStoreConverter builds a HashMap),
  which is *not* PostgreSQL's output order in general.
* interval -> MicroDuration computed in double arithmetic exactly like `MicroDuration.durationMicros`
  (month = 365.25/12 days, (long) cast saturating), from the fields pgjdbc's `PGInterval` parses.
* multi-dimensional arrays -> one null per sub-array; arrays of money/name/interval/varbit/bit/xml/
  point/refcursor have no schema in Debezium and are dropped.
* domains take the first type modifier found down the chain (a domain over a domain too).
* defaults follow PostgresDefaultValueConverter: literals through the column's converter, function
  calls and CURRENT_DATE/CURRENT_TIMESTAMP/... -> the type's zero, enums too, no default otherwise.
"""

from emulator.connectors.postgres.types.columns import column_def, column_def_ex
from emulator.connectors.postgres.types.model import PgType, TypeConfig
from emulator.connectors.postgres.types.source_type import source_length_scale
from emulator.connectors.postgres.types.toast import placeholder_bytes

__all__ = [
    "PgType",
    "TypeConfig",
    "column_def",
    "column_def_ex",
    "placeholder_bytes",
    "source_length_scale",
]
