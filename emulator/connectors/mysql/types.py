"""MySQL/MariaDB column types -> Kafka Connect schemas and value converters (Debezium 3.6.3 semantics).

Each column gets two converters from the same table below:
* `convert` takes the value the binlog decoder (`binlog.py`) produced: signed ints, floats, DECIMAL as its
  unscaled integer, DATE as days, TIME/DATETIME/TIMESTAMP as microseconds, ENUM as its index, SET as its
  bit mask, BIT as an int, strings and blobs as bytes; `ZERO` for zero dates.
* `snapshot_convert` takes the text protocol value a SELECT returns (str, or bytes for binary columns).

Handling modes: decimal.handling.mode (precise/double/string), bigint.unsigned.handling.mode (long/precise),
binary.handling.mode (bytes/base64/base64-url-safe/hex), time.precision.mode
(adaptive_time_microseconds/connect here; microseconds/nanoseconds/isostring in temporal_modes.py).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from emulator.config import ConfigError
from emulator.connect.javafloat import java_double
from emulator.connect.schema import Schema
from emulator.connect.schema import struct as connect_struct
from emulator.connect.unset import unset
from emulator.connectors.mysql.ddl import Column
from emulator.connectors.mysql.ddl_types import enum_option
from emulator.connectors.mysql.temporal_modes import temporal
from emulator.connectors.mysql.values import (
    ZERO,
    Converter,
    bytes_encoder,
    connect_time_ms,
    dec_plain,
    dec_unscaled,
    f32_text,
    float32_json,
    identity,
    nonzero,
    text_call,
    text_date,
    text_datetime_us,
    text_datetime_us_written,
    text_decimal_b64,
    text_decoder,
    text_time_us,
    unscaled_b64,
    with_zero,
    zoned_iso,
    zoned_iso_trimmed,
)

_b64 = base64.b64encode
_F32 = struct.Struct("<f")


@dataclass(slots=True)
class TypeConfig:
    decimal_mode: str = "precise"
    bigint_unsigned_mode: str = "long"
    binary_mode: str = "bytes"
    time_precision_mode: str = "adaptive_time_microseconds"
    # MySqlConnector snapshots read TIMESTAMP with Connector/J's getObject (a java.sql.Timestamp) and print it
    # with ISO_OFFSET_DATE_TIME: the fraction without trailing zeros (.5, none for .000000); the binlog and
    # the MariaDbConnector print the column's fsp digits
    snapshot_timestamp_trimmed: bool = False
    mariadb_connector: bool = False  # connector.class=...MariaDbConnector (its own UUID type, see map_column)
    # event.converting.failure.handling.mode=fail: a value or DEFAULT a converter throws on stops (temporal_modes)
    convert_fail: bool = False

    @classmethod
    def from_settings(cls, s: Any) -> TypeConfig:
        """The type modes of the connector's typed settings (emulator.settings.BinlogSettings)."""
        r = s.relational
        mariadb = s.mariadb
        return cls(
            r.decimal_handling_mode,
            s.binlog.bigint_unsigned_handling_mode,
            r.binary_handling_mode,
            r.time_precision_mode,
            snapshot_timestamp_trimmed=not mariadb,
            mariadb_connector=mariadb,
            convert_fail=s.errors.converting_failure_mode.strip().lower() == "fail",
        )


class EventConversionError(ValueError):
    """A value Debezium cannot convert: its dispatch of the row's event fails, which stops the connector, or with
    event.processing.failure.handling.mode=warn|skip drops that row (emulator/connectors/mysql/failed_rows.py)."""


class UnsupportedColumn(ConfigError):
    """A column type the emulator cannot encode as this connector does: refused, not guessed."""


CHARSET_CODECS = {
    "utf8mb4": "utf-8",
    "utf8mb3": "utf-8",
    "utf8": "utf-8",
    "latin1": "cp1252",
    "ascii": "ascii",
    "binary": None,
    "ucs2": "utf-16-be",
    "utf16": "utf-16-be",
    "utf16le": "utf-16-le",
    "utf32": "utf-32-be",
    "cp1250": "cp1250",
    "cp1251": "cp1251",
    "cp1256": "cp1256",
    "cp1257": "cp1257",
    "cp850": "cp850",
    "cp852": "cp852",
    "cp866": "cp866",
    "cp932": "cp932",
    "latin2": "iso8859-2",
    "latin5": "iso8859-9",
    "latin7": "iso8859-13",
    "greek": "iso8859-7",
    "hebrew": "iso8859-8",
    "koi8r": "koi8-r",
    "koi8u": "koi8-u",
    "macroman": "mac-roman",
    "macce": "mac-latin2",
    "gbk": "gbk",
    "gb2312": "gb2312",
    "gb18030": "gb18030",
    "big5": "big5",
    "sjis": "shift_jis",
    "ujis": "euc-jp",
    "eucjpms": "euc-jp",
    "euckr": "euc-kr",
    "tis620": "tis-620",
    "armscii8": "cp1252",
    "swe7": "ascii",
    "dec8": "cp1252",
    "hp8": "cp1252",
    "keybcs2": "cp852",
    "geostd8": "cp1252",
    "cp1258": "cp1258",
}


def codec_of(charset: str | None) -> str:
    return CHARSET_CODECS.get((charset or "utf8mb4").lower(), "utf-8") or "utf-8"


# -- the mapping ------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Mapped:
    schema: Schema
    convert: Converter
    snapshot_convert: Converter
    always_optional: bool = False  # the field schema is optional whatever the column's NOT NULL
    default_convert: Converter | None = None  # the DEFAULT's text -> the schema default, when not snapshot's


def _c_kind(conv: Callable, *kind: Any) -> Callable:
    """`conv` marked with what it computes (`conv.c_kind`), for the C row plans (row_plan.py): a converter whose
    kind and arguments are known there is computed in C from the row's bytes; one without the mark keeps its table
    on the generated decoders."""
    conv.c_kind = kind
    return conv


def _int_type(base: str, unsigned: bool, cfg: TypeConfig) -> Mapped:
    if base in ("TINYINT", "SMALLINT") and not (base == "SMALLINT" and unsigned):
        ctype = "int16"
    elif base in ("MEDIUMINT", "SMALLINT") or (base == "INT" and not unsigned):
        ctype = "int32"
    else:
        ctype = "int64"
    if not unsigned:
        return Mapped(Schema(ctype), identity, int)
    bits = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "INTEGER": 32, "BIGINT": 64}[base]
    mask = (1 << bits) - 1
    if bits < 64:
        return Mapped(Schema(ctype), _c_kind(lambda v, m=mask: v & m, "uint"), int)
    if cfg.bigint_unsigned_mode == "precise":
        schema = Schema(
            "bytes",
            name="org.apache.kafka.connect.data.Decimal",
            version=1,
            parameters={"scale": "0", "connect.decimal.precision": "20"},
        )
        return Mapped(schema, lambda v, m=mask: unscaled_b64(v & m), lambda s: unscaled_b64(int(s)))

    def wrap(s: str) -> int:
        v = int(s)
        return v - (1 << 64) if v >= (1 << 63) else v

    return Mapped(Schema("int64"), identity, wrap)


ZERO_DATE_TYPES = ("DATE", "DATETIME", "TIMESTAMP")
# the types whose NOT NULL column's schema default map_column takes (`zero_default`): a zero date, or a TIME /
# DATETIME value the time.precision.mode cannot convert, reads as it
DEFAULTED_TYPES = (*ZERO_DATE_TYPES, "TIME")


def map_column(col: Column, cfg: TypeConfig, zero_default: Any = None, key: bool = False) -> Mapped:
    """`zero_default`: the schema default of a NOT NULL DATE/DATETIME/TIMESTAMP/TIME column, its value for a zero date
    (or for a TIME/DATETIME value the mode cannot convert: temporal_modes._required); `key`: a message.key.columns
    column (a value the mode cannot convert stops, nullable or not: temporal_modes.temporal)
    (JdbcValueConverters.convertValue hands a NOT NULL column's null the field schema's default, else the type's
    fallback; recorded: a NOT NULL DATETIME(3) DEFAULT '2001-...' reads a zero date as that default)."""
    base = col.base_type
    unsigned = col.unsigned
    if base == "INTEGER":
        base = "INT"
    if base in ("NUMERIC", "DEC", "FIXED"):
        base = "DECIMAL"
    if base in ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT"):
        return _int_type(base, unsigned, cfg)
    if base in ("BOOLEAN", "BOOL"):
        return Mapped(Schema("boolean"), nonzero, lambda s: s.strip() not in ("0", ""))
    if base in ("DECIMAL", "NUMERIC", "DEC", "FIXED"):
        scale = col.scale or 0
        if cfg.decimal_mode == "double":
            m = Mapped(
                Schema("double"), lambda u, sc=scale: java_double(u / 10**sc), lambda s: java_double(float(s))
            )
        elif cfg.decimal_mode == "string":
            m = Mapped(
                Schema("string"),
                lambda u, sc=scale: dec_plain(u, sc),
                lambda s, sc=scale: dec_plain(dec_unscaled(s, sc), sc),
            )
        else:
            params = {"scale": str(scale)}
            if col.length is not None:
                params["connect.decimal.precision"] = str(col.length)
            schema = Schema(
                "bytes", name="org.apache.kafka.connect.data.Decimal", version=1, parameters=params
            )
            m = Mapped(schema, unscaled_b64, lambda s, sc=scale: text_decimal_b64(s, sc))
        if scale and col.length and col.type_name.endswith("ZEROFILL") and not cfg.mariadb_connector:
            m.snapshot_convert = _zerofill_read(m.snapshot_convert, col.name, col.length, scale)
        return m
    if base in ("FLOAT", "REAL") and not (base == "FLOAT" and col.scale is not None):
        return Mapped(Schema("float"), float32_json, f32_text)
    if base == "FLOAT":  # FLOAT(M,D): a float32 value in a FLOAT64 field (Float.doubleValue())
        return Mapped(
            Schema("double"), java_double, lambda s: java_double(_F32.unpack(_F32.pack(float(s)))[0])
        )
    if base in ("DOUBLE", "DOUBLE PRECISION", "REAL"):
        return Mapped(Schema("double"), java_double, lambda s: java_double(float(s)))
    if base == "BIT":
        n = col.length or 1
        if n == 1:
            return Mapped(
                Schema("boolean"), _c_kind(lambda v: v != 0, "bool"), lambda b: int.from_bytes(b, "big") != 0
            )
        nbytes = (n + 7) // 8
        schema = Schema("bytes", name="io.debezium.data.Bits", version=1, parameters={"length": str(n)})
        return Mapped(
            schema,
            _c_kind(lambda v, k=nbytes: _b64(v.to_bytes(k, "little")).decode(), "bits", nbytes),
            lambda b, k=nbytes: _b64(int.from_bytes(b, "big").to_bytes(k, "little")).decode(),
        )
    if base in ("ENUM", "SET"):
        members = [enum_option(m) for m in (col.enum_values or [])]
        name = "io.debezium.data.Enum" if base == "ENUM" else "io.debezium.data.EnumSet"
        schema = Schema("string", name=name, version=1, parameters={"allowed": ",".join(members)})
        if base == "ENUM":

            def enum_conv(i, m=members):
                return m[i - 1] if 0 < i <= len(m) else ""

            return Mapped(schema, _c_kind(enum_conv, "enum", tuple(members)), identity)

        def set_conv(mask, m=members):
            return ",".join(x for i, x in enumerate(m) if mask >> i & 1)

        return Mapped(schema, _c_kind(set_conv, "set", tuple(members)), identity)
    if base == "UUID" and cfg.mariadb_connector:
        # the MariaDbConnector maps UUID to io.debezium.data.Uuid, from the binlog's stored bytes (MariaDB
        # swaps the segments of some UUID versions) and from Connector/J's java.util.UUID in the snapshot;
        # its jars are not available here to record it, so the column is refused rather than guessed
        raise UnsupportedColumn(
            f"column {col.name} of type UUID: not supported with connector.class="
            "io.debezium.connector.mariadb.MariaDbConnector (Debezium's io.debezium.data.Uuid encoding could "
            "not be recorded); exclude its table or use io.debezium.connector.mysql.MySqlConnector",
            "connector.class",
        )
    if base in (
        "CHAR",
        "VARCHAR",
        "NCHAR",
        "NVARCHAR",
        "TINYTEXT",
        "TEXT",
        "MEDIUMTEXT",
        "LONGTEXT",
        "UUID",
        "INET4",
        "INET6",
    ):
        codec = codec_of(col.value_charset or col.charset)  # (value_charset: ddl_model.Column)
        return Mapped(Schema("string"), text_decoder(codec), identity)
    if base == "JSON":
        schema = Schema("string", name="io.debezium.data.Json", version=1)
        return Mapped(schema, _json_binary_text, identity)
    if base in ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"):
        enc = bytes_encoder(cfg.binary_mode)
        schema = Schema("bytes" if cfg.binary_mode == "bytes" else "string")
        if base == "BINARY" and col.length:
            n = col.length
            # a default is the literal's bytes as written, not padded (recorded: BINARY(3) DEFAULT 'ab' -> "ab")
            return Mapped(
                schema,
                lambda b, k=n: enc(b.ljust(k, b"\0")),
                lambda b, k=n: enc(b.ljust(k, b"\0")),
                default_convert=enc,
            )
        return Mapped(schema, enc, enc)
    if base in ("DATE", "TIME", "DATETIME"):
        modal = temporal(
            base,
            cfg.time_precision_mode,
            col.name,
            col.optional,
            zero_default,
            EventConversionError,
            key,
            cfg.convert_fail,
        )
        if modal is not None:
            schema, conv, snap, written = modal
            return Mapped(schema, conv, snap, default_convert=written)
    if base == "DATE":
        name = (
            "org.apache.kafka.connect.data.Date"
            if cfg.time_precision_mode == "connect"
            else "io.debezium.time.Date"
        )
        zero = None if col.optional else (0 if zero_default is None else zero_default)
        conv = _c_kind(with_zero(identity, zero, "r", ints=True), "temporal", 1, zero)
        return Mapped(Schema("int32", name=name, version=1), conv, text_call(text_date, zero))
    if base == "TIME":
        if cfg.time_precision_mode == "connect":
            return Mapped(
                Schema("int32", name="org.apache.kafka.connect.data.Time", version=1),
                conv := (
                    _connect_time_ms_required(col.name)
                    if cfg.convert_fail
                    else connect_time_ms
                    if col.optional
                    else _connect_time_ms_required(col.name, zero_default)
                ),
                lambda s, c=conv: c(text_time_us(s)),
            )
        return Mapped(Schema("int64", name="io.debezium.time.MicroTime", version=1), identity, text_time_us)
    if base == "DATETIME":
        fsp = col.length or 0
        zero = None if col.optional else (0 if zero_default is None else zero_default)
        if cfg.time_precision_mode == "connect":
            schema = Schema("int64", name="org.apache.kafka.connect.data.Timestamp", version=1)
            scale = 1000
        elif fsp <= 3:
            schema = Schema("int64", name="io.debezium.time.Timestamp", version=1)
            scale = 1000
        else:
            schema = Schema("int64", name="io.debezium.time.MicroTimestamp", version=1)
            scale = 1
        if scale == 1:
            conv = _c_kind(with_zero(identity, zero, "r", ints=True), "temporal", 1, zero)
        else:
            conv = _c_kind(
                with_zero(lambda us: us // 1000, zero, "r // 1000", ints=True), "temporal", 1000, zero
            )
        return Mapped(
            schema,
            conv,
            text_call(text_datetime_us, zero, scale),
            default_convert=text_call(text_datetime_us_written, zero, scale),
        )
    if base == "TIMESTAMP":
        fsp = col.length or 0
        # the fallback is printed without a fraction, whatever the column's digits (JdbcValueConverters'
        # fallbackTimestampWithTimeZone, precision null; recorded: TIMESTAMP(2) NOT NULL -> "1970-01-01T00:00:00Z")
        zero = None if col.optional else (zoned_iso(0, 0) if zero_default is None else zero_default)
        conv = _c_kind(with_zero(lambda us, f=fsp: zoned_iso(us, f), zero), "zoned", fsp, zero)
        snap = with_zero(zoned_iso_trimmed, zero) if cfg.snapshot_timestamp_trimmed else conv
        return Mapped(
            Schema("string", name="io.debezium.time.ZonedTimestamp", version=1),
            conv,
            lambda s, c=snap: c(text_datetime_us(s)),
        )
    if base == "YEAR":
        return Mapped(
            Schema("int32", name="io.debezium.time.Year", version=1),
            _c_kind(lambda v: 1900 + v if v < 256 else v, "year"),
            # JDBC's YEAR read (snapshot, defaults) through Debezium's time adjuster: 0-69 -> 2000-2069,
            # 70-99 -> 1970-1999 (YEAR 0000 is 2000; the binlog's byte 0 is 1900 above)
            lambda s: _adjust_year(int(s)),
        )
    if base == "POINT":
        schema = connect_struct(
            "io.debezium.data.geometry.Point",
            [
                ("x", Schema("double")),
                ("y", Schema("double")),
                ("wkb", Schema("bytes", optional=True)),
                ("srid", Schema("int32", optional=True)),
            ],
            version=1,
            doc="Geometry (POINT)",
        )
        return Mapped(schema, _point, _point)
    if base in (
        "GEOMETRY",
        "LINESTRING",
        "POLYGON",
        "MULTIPOINT",
        "MULTILINESTRING",
        "MULTIPOLYGON",
        "GEOMETRYCOLLECTION",
        "GEOMCOLLECTION",
    ):
        schema = connect_struct(
            "io.debezium.data.geometry.Geometry",
            [("wkb", Schema("bytes")), ("srid", Schema("int32", optional=True))],
            version=1,
            doc="Geometry",
        )
        # recorded: a GEOMETRY NOT NULL column still has an optional field schema (POINT NOT NULL does not)
        return Mapped(schema, _geometry, _geometry, always_optional=True)
    # anything else: its text
    return Mapped(
        Schema("string"),
        lambda b: b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b),
        lambda s: s.decode("utf-8", "replace") if isinstance(s, bytes) else s,
    )


def _zerofill_read(conv: Callable, name: str, precision: int, scale: int) -> Callable:
    """The MySqlConnector's snapshot reads a DECIMAL(M,D) ZEROFILL (D > 0) with Connector/J's getObject, whose
    getString pads the value's plain text to M characters (StringUtils.zeroFill): a value using all M-D integer
    digits is one character longer and throws (NegativeArraySizeException: -1), which stops the snapshot at that
    row, the row read before it lost with the buffering receiver (recorded: case decimal_zerofill_snapshot_stops,
    campaign seed 206002). The binlog's values and the MariaDbConnector's driver are not affected."""
    limit = precision - scale - 1  # integer digits that fit

    def read(s: Any) -> Any:
        t = s.decode() if isinstance(s, bytes) else s
        if len(t.partition(".")[0].lstrip("0")) > limit:
            raise EventConversionError(
                f"column {name}: DECIMAL({precision},{scale}) ZEROFILL value {t} (Connector/J's zeroFill throws "
                "on it in the snapshot; Debezium stops here too)"
            )
        return conv(s)

    return read


def _connect_time_ms_required(name: str, default: Any = None) -> Callable[[int | None], int]:
    """NOT NULL: the null Debezium makes of an out-of-day TIME is the field's schema `default` (Connect's Struct;
    case required_default_connect), else fails Connect's validation and stops the connector (recorded: the
    MySqlConnector ends there); the emulator stops likewise, naming the column. With
    event.processing.failure.handling.mode=warn|skip the row is dropped instead (mariadb case
    processing_failure_skip_drops_rows)."""

    filled = None if default is None else unset(default)  # an unset field (connect/unset.py)

    def conv(us: int | None) -> int:
        ms = connect_time_ms(us)
        if ms is None and filled is not None:
            return filled
        if ms is None:
            raise EventConversionError(
                f"column {name}: TIME value {us} us is outside a day and cannot be a required "
                "org.apache.kafka.connect.data.Time (time.precision.mode=connect; or "
                "event.converting.failure.handling.mode=fail); Debezium stops here too"
            )
        return ms

    return conv


def _point(b: bytes) -> dict:
    """MySQL's internal geometry (4-byte SRID + WKB) of a POINT -> io.debezium.data.geometry.Point."""
    srid = int.from_bytes(b[:4], "little")
    wkb = b[4:]
    x, y = struct.unpack("<dd" if wkb[0] == 1 else ">dd", wkb[5:21])
    return {"x": java_double(x), "y": java_double(y), "wkb": _b64(wkb).decode(), "srid": srid or None}


def _geometry(b: bytes) -> dict:
    srid = int.from_bytes(b[:4], "little")
    return {"wkb": _b64(b[4:]).decode(), "srid": srid or None}


def _json_binary_text(b: bytes) -> str:
    if not b:
        return "null"
    if 15 < b[0] < 128:
        # MariaDB's JSON is a LONGTEXT alias whose binlog value is the text (a column the model knows as JSON from a
        # streamed ADD COLUMN / CREATE TABLE). Debezium's binlog library (JsonBinary.parseAsString, 0.41.2) returns
        # a value whose first (signed) byte is above 15 as `new String(bytes)`; MySQL's binary form starts with its
        # type code, 0..15 (campaign seed 86001, case json_text_mariadb)
        return b.decode("utf-8", "replace")
    from pymysqlreplication.json_binary import parse_json

    return _json_text(parse_json(b[0], b[1:]))


def _json_text(v: Any) -> str:
    import json

    def norm(x):
        if isinstance(x, bytes):
            return x.decode("utf-8", "replace")
        if isinstance(x, dict):
            return {norm(k): norm(w) for k, w in x.items()}
        if isinstance(x, list):
            return [norm(w) for w in x]
        return x

    return json.dumps(norm(v), ensure_ascii=False, separators=(", ", ": "))


def _adjust_year(y: int) -> int:
    if 0 <= y < 70:
        return 2000 + y
    if 70 <= y < 100:
        return 1900 + y
    return y


def default_value(col: Column, mapped: Mapped) -> Any:
    """The Connect schema default of a column (None: no default)."""
    if not col.has_default or col.default is None:
        return None
    text = col.default
    base = col.base_type
    if text in ("TRUE", "FALSE"):  # a streamed DEFAULT TRUE (kept as written): the value 1 / 0
        text = "1" if text == "TRUE" else "0"
    try:
        if base in ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB", "GEOMETRY"):
            return (mapped.default_convert or mapped.snapshot_convert)(text.encode())
        if base == "BIT":
            t = text
            if t.lower().startswith("b'") and t.endswith("'"):
                v = int(t[2:-1] or "0", 2)
            elif t and set(t) <= {"0", "1"}:  # the digits of b'101', as the model keeps them
                v = int(t, 2)
            else:
                v = int(t)
            return mapped.convert(v)
        if base == "ENUM" or base == "SET":
            return text
        if base in ("DECIMAL", "NUMERIC", "DEC", "FIXED") and ("e" in text or "E" in text):
            text = format(Decimal(text), "f")  # DEFAULT 1.5e2 (a streamed statement as written): 150
        if base == "BIGINT" and col.unsigned and mapped.schema.type == "int64":
            # bigint.unsigned.handling.mode=long: a default above Long.MAX is Long.MAX (recorded:
            # 18446744073709551615 -> 9223372036854775807), where a row's value wraps
            return min(int(text), 2**63 - 1)
        if base == "TIMESTAMP":
            us = text_datetime_us(text)
            if us is ZERO:
                return None if col.optional else zoned_iso(0, 0)
            # a literal with a fraction (SHOW CREATE TABLE writes the column's digits): the column's fractional
            # digits (recorded: TIMESTAMP(2) '...01.50' -> "01.50Z"); CURRENT_TIMESTAMP (the model's epoch text)
            # and a literal without one: none
            return zoned_iso(us, (col.length or 0) if "." in text else 0)
        return (mapped.default_convert or mapped.snapshot_convert)(text)
    except (ValueError, TypeError, IndexError, OverflowError):
        return None
