"""The winners' `after` images parsed on the driver from Arrow, instead of `from_json` and a Spark expression per
value on executors (`sink.executors.decoded`).

`from_json` of the winners' `after` was the winners job's largest step (~25 % of its executor samples, Spark
makes a reader and an 8 KB buffer per record; docs/sink.md, session 19), and the logical types' projection
another ~10 %. Here the executors send each winner's `after` text as it is (a delete: its canonical key, whose
fields are the row's key columns), and the driver parses the column's bytes with pyarrow's JSON reader (C++,
one pass, an explicit schema of the physical types) and makes the logical types with numpy.

Only rows of these Connect types (`supported`): integers, booleans, float32/float64 (their NaN and infinities,
which JsonConverter prints as strings, made bare tokens first: `sink.arrow_values.bare_non_numeric`), strings
(incl. Json, Uuid, Enum, ...), Decimals of up to 18 digits (`sink.arrow_decode.decimals`), Date, Timestamp,
MicroTimestamp, NanoTimestamp, ZonedTimestamp and bytes (`sink.arrow_values`; session 21), and arrays of those
but Decimals, with the same results as `sink.decode.convert`'s expressions (clamping, PostgreSQL's date
infinity). Any other type (structs, maps, nested arrays, wider Decimals), or a text pyarrow does not read
exactly as the schema says (a number where a string is expected, an integer out of range, a broken surrogate
escape, a ZonedTimestamp with an offset, base64 without padding: where Spark's reading gives a null or its own
reading), raises `NotRead` and the caller takes the expression path, which reads it as before.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj
from pyspark.sql import types as T

from sink.arrow_decode import DecimalError, decimals
from sink.arrow_values import NotRead, bare_non_numeric, base64_bytes, zoned
from sink.decode import MAX_DAY, MAX_US, MIN_DAY, MIN_US
from sink.types import DATE_POS_INFINITY, DECIMAL, NANO_INF, NTZ_NAMES, ZONED_TS, arrow_type, spark_type

_DIRECT = {
    "int8": pa.int8(),
    "int16": pa.int16(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "float32": pa.float32(),
    "float": pa.float32(),
    "float64": pa.float64(),
    "double": pa.float64(),
    "boolean": pa.bool_(),
}
_PRIMITIVE = {
    pa.int8(): T.ByteType(),
    pa.int16(): T.ShortType(),
    pa.int32(): T.IntegerType(),
    pa.int64(): T.LongType(),
    pa.float32(): T.FloatType(),
    pa.float64(): T.DoubleType(),
    pa.bool_(): T.BooleanType(),
}


def _kind(f: dict) -> str | None:
    """How a field is read: 'direct', 'string', 'decimal', 'date', 'ts', 'zoned', 'bytes', 'array' (of items
    read here, not nested); None: not here."""
    typ, st = f["type"], spark_type(f)
    if f.get("name") == DECIMAL:
        return "decimal" if typ == "bytes" and isinstance(st, T.DecimalType) and st.precision <= 18 else None
    if typ in _DIRECT and st == _PRIMITIVE[_DIRECT[typ]]:
        return "direct"
    if f.get("name") == ZONED_TS:
        return "zoned" if typ == "string" and isinstance(st, T.TimestampType) else None
    if typ == "string" and isinstance(st, T.StringType):
        return "string"
    if typ == "int32" and isinstance(st, T.DateType):
        return "date"
    if typ == "int64" and isinstance(st, T.TimestampNTZType):
        return "ts"
    if typ == "bytes" and isinstance(st, T.BinaryType):
        return "bytes"
    if typ == "array" and _kind(f["items"]) not in (None, "array", "decimal"):
        return "array"
    return None


def supported(fields: list[dict]) -> bool:
    return all(_kind(f) is not None for f in fields)


def _physical(f: dict, string: pa.DataType) -> pa.DataType:
    k = _kind(f)
    if k == "direct":
        return _DIRECT[f["type"]]
    if k in ("string", "decimal", "zoned", "bytes"):
        return string
    if k == "array":
        return pa.list_(_physical(f["items"], string))
    return pa.int32() if k == "date" else pa.int64()


def _floats(f: dict) -> bool:
    """A float32/float64 value in the field (JsonConverter prints their NaN and infinities as strings)."""
    k = _kind(f)
    if k == "array":
        return _floats(f["items"])
    return k == "direct" and pa.types.is_floating(_DIRECT[f["type"]])


def _numbers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    return arr.fill_null(0).to_numpy(zero_copy_only=False), valid


def _date(arr: pa.Array) -> pa.Array:
    """`sink.decode.convert` of a Date: PostgreSQL's infinity as the last day, else clamped to Python's range."""
    v, valid = _numbers(arr)
    days = np.where(np.isin(v, DATE_POS_INFINITY), MAX_DAY, np.clip(v, MIN_DAY, MAX_DAY)).astype(np.int32)
    return pa.array(days, pa.int32(), mask=~valid).cast(pa.date32())


def _timestamp(arr: pa.Array, name: str) -> pa.Array:
    """`sink.decode.convert` of Timestamp / MicroTimestamp / NanoTimestamp: microseconds clamped to Python's
    range (nanoseconds floor-divided, their +-infinity at the range's ends)."""
    v, valid = _numbers(arr)
    unit = NTZ_NAMES[name]
    if unit is None:
        us = np.where(v == NANO_INF[0], MAX_US, np.where(v == NANO_INF[1], MIN_US, v // 1000))
    elif unit == 1:
        us = v
    else:
        us = np.clip(v, MIN_US // unit, MAX_US // unit) * unit
    us = np.clip(us, MIN_US, MAX_US).astype(np.int64)
    return pa.array(us, pa.int64(), mask=~valid).cast(pa.timestamp("us"))


def texts_buffer(texts: pa.Array | pa.ChunkedArray) -> pa.Buffer:
    """The column's values end to end (each one JSON object: pyarrow's reader takes them one after another)."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks() if texts.num_chunks != 1 else texts.chunk(0)
    if texts.null_count:
        raise NotRead("a winner without a text")
    n = len(texts)
    if pa.types.is_large_string(texts.type) or pa.types.is_large_binary(texts.type):
        width, dtype = 8, np.int64
    else:
        width, dtype = 4, np.int32
    bufs = texts.buffers()
    offs = np.frombuffer(bufs[1], dtype, n + 1, texts.offset * width)
    if bufs[2] is None:
        raise NotRead("no texts")
    return bufs[2].slice(int(offs[0]), int(offs[-1] - offs[0]))


def read(texts: pa.Array | pa.ChunkedArray, fields: list[dict], string: pa.DataType) -> dict[str, pa.Array]:
    """The `after` fields' decoded columns (name -> Arrow array of the type Spark's `toArrow` gives for the
    field's `sink.types.spark_type`; `string` is the string type it gives) from one JSON text per row."""
    n = len(texts)
    if n == 0 or not fields:
        raise NotRead("nothing to read")
    buf = texts_buffer(texts)
    if any(_floats(f) for f in fields):
        bare = bare_non_numeric(buf.to_pybytes())
        if bare is not None:
            buf = pa.py_buffer(bare)
    schema = pa.schema([pa.field(f["field"], _physical(f, string)) for f in fields])
    try:
        t = pj.read_json(
            pa.BufferReader(buf),
            # one block: the objects need no newline between them; `use_threads` off: the batch's other work
            # keeps the cores busy, and a thread pool per batch costs more than it gives at this size
            read_options=pj.ReadOptions(use_threads=False, block_size=max(buf.size, 1) + 1),
            parse_options=pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore"),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise NotRead(str(e)) from e
    if t.num_rows != n:
        raise NotRead(f"{t.num_rows} objects in {n} texts")
    out = {}
    for f in fields:
        c = t.column(f["field"])
        out[f["field"]] = _convert(c.combine_chunks() if c.num_chunks != 1 else c.chunk(0), f, string)
    return out


def _convert(c: pa.Array, f: dict, string: pa.DataType) -> pa.Array:
    """The physical column `c` of field `f` as the Arrow type Spark's `toArrow` gives for its logical type."""
    k = _kind(f)
    if k == "decimal":
        st = spark_type(f)
        try:
            return decimals(c, st.precision, st.scale)
        except DecimalError as e:  # e.g. a TOAST placeholder's text in an event's image: the expressions
            raise NotRead(str(e)) from e
    if k == "date":
        return _date(c)
    if k == "ts":
        return _timestamp(c, f["name"])
    if k == "zoned":
        return zoned(c, arrow_type(spark_type(f)))
    if k == "bytes":
        return base64_bytes(c, pa.large_binary() if pa.types.is_large_string(string) else pa.binary())
    if k == "array":
        items = _convert(c.flatten(), f["items"], string)  # the values of the slice's lists only
        offs = pc.subtract(c.offsets, c.offsets[0])
        typ = pa.list_(pa.field("element", items.type, f["items"].get("optional", True)))
        return pa.ListArray.from_arrays(offs, items, type=typ, mask=c.is_null() if c.null_count else None)
    return c


def images(texts: pa.Array | pa.ChunkedArray, fields: list[dict], string: pa.DataType) -> pa.StructArray:
    """Row images (`after`, `before`; null: no image) as the struct of `read`'s columns, null where the text
    is: `sink.executors.events`' `_image` for SCD type 2 and tables without a key, read on the driver."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks() if texts.num_chunks != 1 else texts.chunk(0)
    n = len(texts)
    if n == 0:
        raise NotRead("nothing to read")
    missing = texts.is_null()
    cols = read(texts.fill_null("{}") if texts.null_count else texts, fields, string)
    return pa.StructArray.from_arrays(
        [cols[f["field"]] for f in fields],
        fields=[pa.field(f["field"], cols[f["field"]].type) for f in fields],
        mask=missing if texts.null_count else None,
    )
