"""Placeholders for unchanged TOASTed values (`unavailable.value.placeholder`), per type."""

from __future__ import annotations

import uuid as _uuid
from typing import TYPE_CHECKING, Any

from emulator.connect.schema import (
    ARRAY,
    BYTES,
    MAP,
    STRING,
)
from emulator.connectors.postgres.types.encoders import b64, jq
from emulator.connectors.postgres.types.model import TypeConfig

if TYPE_CHECKING:  # annotation only: the type table must not depend on its placeholders
    from emulator.connectors.postgres.types.mappings import TypeMapping


def placeholder_bytes(cfg: TypeConfig) -> bytes:
    p = cfg.unavailable_value_placeholder
    if p.startswith("hex:"):
        return bytes.fromhex(p[4:])
    return p.encode("utf-8")


def unavailable_value(m: TypeMapping, cfg: TypeConfig) -> Any:
    """The JSON-ready value Debezium puts in place of an unchanged TOASTed column."""
    pb = placeholder_bytes(cfg)
    ps = pb.decode("utf-8", "replace")
    schema = m.schema
    if m.hstore:
        if schema.type == MAP:
            return {ps: ps}
        return "{" + jq(ps) + ":" + jq(ps) + "}"
    if schema.type == ARRAY:
        kind = m.unavailable
        if kind == "strings":
            return [ps]
        if kind == "bytes":
            if schema.items is not None and schema.items.name == "org.apache.kafka.connect.data.Date":
                return None  # connect mode: the ints are no java.util.Date
            return [b - 256 if b > 127 else b for b in pb]  # Java (int) of each signed byte
        if kind == "uuid":
            import hashlib  # here: a start without uuid[] columns needs none of OpenSSL's digests

            return [str(_uuid.UUID(bytes=hashlib.md5(pb).digest(), version=3))]  # UUID.nameUUIDFromBytes
        if kind == "binary" and schema.items is not None and schema.items.type == BYTES:
            return [b64(pb)]
        return None
    if (
        m.unavailable == "binary"
    ):  # bytea: bytes mode -> the bytes, hex mode -> the string, base64 modes: null
        if cfg.binary_handling_mode == "bytes":
            return b64(pb)
        return ps if cfg.binary_handling_mode == "hex" else None
    if schema.type == STRING:
        return ps
    if schema.type == BYTES and schema.name is None:
        return b64(pb)
    return None
