"""A table's structure as Debezium reads it over JDBC (JdbcConnection.readSchema with MySQL Connector/J 9.1,
`useInformationSchema=true`), not from DDL.

Debezium's binlog connectors read a table this way in one place only: an incremental snapshot of a table its
schema does not know (AbstractIncrementalSnapshotChangeEventSource.readSchemaForTable), e.g. one outside
`table.include.list`. That table then differs from the DDL-built one: Connector/J's TYPE_NAME (TINYINT(1) is
"BIT", JSON "LONGTEXT", POINT "GEOMETRY"), COLUMN_SIZE as length (INT is 10, not 11), COLUMN_DEF as the
default expression as information_schema prints it ('d' quoted, "NULL"), no charsets, comments or enum
members, and the primary key (else the first unique index by name, nullable columns included).

The queries are Connector/J's own, as MariaDB's general log shows them (DatabaseMetaDataUsingInfoSchema
getTables / getColumns / getPrimaryKeys / getIndexInfo), so the server computes every value as it does for
Debezium. Recorded: mariadb cases incremental_unknown_table_*.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.connectors.mysql.ddl_model import Column, Table

Query = Callable[[str, Any], list[tuple]]

# getTables: only a "TABLE" is read (JdbcConnection.isTableType); views, sequences, system-versioned and
# mysql/performance_schema tables are not
_TABLE_TYPE = (
    "SELECT TABLE_SCHEMA, TABLE_NAME, CASE WHEN TABLE_TYPE='BASE TABLE' THEN CASE WHEN TABLE_SCHEMA = 'mysql' "
    "OR TABLE_SCHEMA = 'performance_schema' THEN 'SYSTEM TABLE' ELSE 'TABLE' END WHEN TABLE_TYPE='TEMPORARY' "
    "THEN 'LOCAL_TEMPORARY' ELSE TABLE_TYPE END AS TABLE_TYPE FROM INFORMATION_SCHEMA.TABLES "
    "WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s"
)

_SIZE_EXTRA = "WHEN UPPER(DATA_TYPE)='{}' THEN 65535 "  # the geometry types
_GEOMETRIES = (
    "GEOMETRY",
    "POINT",
    "LINESTRING",
    "POLYGON",
    "MULTIPOINT",
    "MULTILINESTRING",
    "MULTIPOLYGON",
    "GEOMETRYCOLLECTION",
    "GEOMCOLLECTION",
)
_TINYINT1 = (
    "LOCATE('ZEROFILL', UPPER(COLUMN_TYPE)) = 0 AND LOCATE('UNSIGNED', UPPER(COLUMN_TYPE)) = 0 AND "
    "LOCATE('(1)', COLUMN_TYPE) != 0"
)
# java.sql.Types per DATA_TYPE (Connector/J's MysqlType), in its order
_JDBC = (
    ("DECIMAL", 3), ("DECIMAL UNSIGNED", 3), ("TINYINT", None), ("TINYINT UNSIGNED", None), ("BOOLEAN", 16),
    ("SMALLINT", 5), ("SMALLINT UNSIGNED", 5), ("INT", 4), ("INT UNSIGNED", 4), ("FLOAT", 7),
    ("FLOAT UNSIGNED", 7), ("DOUBLE", 8), ("DOUBLE UNSIGNED", 8), ("NULL", 0), ("TIMESTAMP", 93),
    ("BIGINT", -5), ("BIGINT UNSIGNED", -5), ("MEDIUMINT", 4), ("MEDIUMINT UNSIGNED", 4), ("DATE", 91),
    ("TIME", 92), ("DATETIME", 93), ("YEAR", 91), ("VARCHAR", 12), ("VARBINARY", -3), ("BIT", -7),
    ("JSON", -1), ("ENUM", 1), ("SET", 1), ("TINYBLOB", -3), ("TINYTEXT", 12), ("MEDIUMBLOB", -4),
    ("MEDIUMTEXT", -1), ("LONGBLOB", -4), ("LONGTEXT", -1), ("BLOB", -4), ("TEXT", -1), ("CHAR", 1),
    ("BINARY", -2), ("GEOMETRY", -2), ("VECTOR", -4), ("UNKNOWN", 1111), ("POINT", -2), ("LINESTRING", -2),
    ("POLYGON", -2), ("MULTIPOINT", -2), ("MULTILINESTRING", -2), ("MULTIPOLYGON", -2),
    ("GEOMETRYCOLLECTION", -2), ("GEOMCOLLECTION", -2),
)  # fmt: skip


def _jdbc_case() -> str:
    parts = []
    for name, code in _JDBC:
        then = f"CASE WHEN {_TINYINT1} THEN -7 ELSE -6 END " if code is None else str(code)
        parts.append(f"WHEN UPPER(DATA_TYPE)='{name}' THEN {then}")
    return "CASE  " + " ".join(parts) + " ELSE 1111 END"


def _type_name_case() -> str:
    geo = " ".join(f"WHEN UPPER(DATA_TYPE)='{g}' THEN 'GEOMETRY'" for g in _GEOMETRIES[1:])
    return (
        f"UPPER(CASE WHEN UPPER(DATA_TYPE)='TINYINT' THEN CASE WHEN {_TINYINT1} THEN 'BIT' WHEN "
        "LOCATE('UNSIGNED', UPPER(COLUMN_TYPE)) != 0 AND LOCATE('UNSIGNED', UPPER(DATA_TYPE)) = 0 THEN "
        "'TINYINT UNSIGNED' ELSE DATA_TYPE END  WHEN LOCATE('UNSIGNED', UPPER(COLUMN_TYPE)) != 0 AND "
        "LOCATE('UNSIGNED', UPPER(DATA_TYPE)) = 0 AND LOCATE('SET', UPPER(DATA_TYPE)) <> 1 AND "
        f"LOCATE('ENUM', UPPER(DATA_TYPE)) <> 1 THEN CONCAT(DATA_TYPE, ' UNSIGNED') {geo} "
        "ELSE UPPER(DATA_TYPE) END)"
    )


def _size_case() -> str:
    frac = "(CASE WHEN DATETIME_PRECISION>0 THEN DATETIME_PRECISION+1 ELSE DATETIME_PRECISION END)"
    geo = "".join(_SIZE_EXTRA.format(g) for g in _GEOMETRIES)
    return (
        f"UPPER(CASE WHEN UPPER(DATA_TYPE)='DATE' THEN 10 WHEN UPPER(DATA_TYPE)='TIME'  THEN 8+{frac} "
        f"WHEN UPPER(DATA_TYPE)='DATETIME' OR  UPPER(DATA_TYPE)='TIMESTAMP'  THEN 19+{frac} "
        f"WHEN UPPER(DATA_TYPE)='YEAR' THEN 4 WHEN UPPER(DATA_TYPE)='TINYINT' AND {_TINYINT1} THEN 1 "
        "WHEN UPPER(DATA_TYPE)='MEDIUMINT' AND LOCATE('UNSIGNED', UPPER(COLUMN_TYPE)) != 0 THEN 8 "
        f"WHEN UPPER(DATA_TYPE)='JSON' THEN 1073741824 {geo}"
        "WHEN CHARACTER_MAXIMUM_LENGTH IS NULL THEN NUMERIC_PRECISION WHEN CHARACTER_MAXIMUM_LENGTH > "
        "2147483647 THEN 2147483647 ELSE CHARACTER_MAXIMUM_LENGTH END)"
    )


# getColumns: the columns Debezium's readTableColumn reads (names, DATA_TYPE, TYPE_NAME, COLUMN_SIZE,
# DECIMAL_DIGITS, NULLABLE, COLUMN_DEF, ORDINAL_POSITION, IS_AUTOINCREMENT, IS_GENERATEDCOLUMN); `%` doubled
# for the driver's argument interpolation
_COLUMNS = (
    f"SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, {_jdbc_case()} AS DATA_TYPE, {_type_name_case()} AS "
    f"TYPE_NAME, {_size_case()} AS COLUMN_SIZE, UPPER(CASE WHEN UPPER(DATA_TYPE)='DECIMAL' THEN NUMERIC_SCALE "
    "WHEN UPPER(DATA_TYPE)='FLOAT' OR UPPER(DATA_TYPE)='DOUBLE' THEN CASE WHEN NUMERIC_SCALE IS NULL THEN 0 "
    "ELSE NUMERIC_SCALE END ELSE NULL END) AS DECIMAL_DIGITS, CASE WHEN IS_NULLABLE='NO' THEN 0 ELSE CASE "
    "WHEN IS_NULLABLE='YES' THEN 1 ELSE 2 END END AS NULLABLE, COLUMN_DEFAULT AS COLUMN_DEF, ORDINAL_POSITION, "
    "IF (EXTRA LIKE '%%auto_increment%%','YES','NO') AS IS_AUTOINCREMENT, "
    "IF (EXTRA LIKE '%%GENERATED%%','YES','NO') AS IS_GENERATEDCOLUMN "
    "FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s "
    "ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION"
)
_PRIMARY_KEY = (
    "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, SEQ_IN_INDEX FROM INFORMATION_SCHEMA.STATISTICS "
    "WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s AND INDEX_NAME='PRIMARY' "
    "ORDER BY TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, SEQ_IN_INDEX"
)
_UNIQUE_INDEXES = (
    "SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME FROM INFORMATION_SCHEMA.STATISTICS "
    "WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s AND NON_UNIQUE=0  ORDER BY NON_UNIQUE, INDEX_NAME, SEQ_IN_INDEX"
)


def _text(v: Any) -> str | None:
    return v.decode() if isinstance(v, bytes) else None if v is None else str(v)


def _ordered(pairs: list[tuple[int, str]]) -> list[str]:
    """Debezium's Collect.set(list, KEY_SEQ - 1, name): each name at its sequence number."""
    out: list[str | None] = []
    for seq, name in pairs:
        while len(out) < seq:
            out.append(None)
        out[seq - 1] = name
    return [n for n in out if n is not None]


def _key_names(q: Query, db: str, name: str) -> list[str]:
    """readPrimaryKeyOrUniqueIndexNames: the primary key, else the first unique index by name."""
    rows = [r for r in q(_PRIMARY_KEY, (db, name)) if (_text(r[0]), _text(r[1])) == (db, name)]
    pk = _ordered([(int(r[3]), _text(r[2]) or "") for r in rows])
    if pk:
        return pk
    first: str | None = None
    pairs: list[tuple[int, str]] = []
    for r in q(_UNIQUE_INDEXES, (db, name)):
        if (_text(r[0]), _text(r[1])) != (db, name) or r[2] is None or not int(r[3]):
            continue
        index = _text(r[2])
        if first is None:
            first = index
        if index != first:
            break
        if r[4] is not None:
            pairs.append((int(r[3]), _text(r[4]) or ""))
    return _ordered(pairs)


def read_table(q: Query, db: str, name: str) -> Table | None:
    """`db`.`name` as JdbcConnection.readSchema builds it, or None when it is not a table (Debezium's
    "Failed to populate table with schema"). Names are compared exactly, as Debezium's TableId.equals."""
    kinds = [r for r in q(_TABLE_TYPE, (db, name)) if (_text(r[0]), _text(r[1])) == (db, name)]
    if not kinds or _text(kinds[0][2]) != "TABLE":
        return None
    columns = []
    for r in q(_COLUMNS, (db, name)):
        if (_text(r[0]), _text(r[1])) != (db, name):
            continue
        optional = int(r[7]) != 0  # columnNullable or columnNullableUnknown
        default = _text(r[8])
        columns.append(
            Column(
                name=_text(r[2]) or "",
                type_name=_text(r[4]) or "",
                jdbc_type=int(r[3]),
                position=int(r[9]),
                length=int(r[5]) if r[5] is not None else 0,  # ResultSet.getInt of NULL
                scale=int(r[6]) if r[6] is not None else None,
                optional=optional,
                auto_incremented=(_text(r[10]) or "").upper() == "YES",
                generated=(_text(r[11]) or "").upper() == "YES",
                # an optional column has the implicit NULL default (ColumnEditorImpl.optional), a COLUMN_DEF
                # replaces it
                has_default=optional or default is not None,
                default=default,
            )
        )
    if not columns:
        return None
    columns.sort(key=lambda c: c.position)
    return Table(db, name, columns, _key_names(q, db, name))
