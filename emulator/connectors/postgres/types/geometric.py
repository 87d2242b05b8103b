"""point (x, y struct) and PostGIS geometry / geography (WKB + SRID struct) values."""

from __future__ import annotations

import struct as _struct

from emulator.connectors.postgres.types.encoders import b64, float_json

_WKB_POINT = _struct.Struct("<BIdd")


def point(t: str) -> dict:
    x_s, _, y_s = t.strip().strip("()").partition(",")
    x, y = float(x_s), float(y_s)
    return {
        "x": float_json(x),
        "y": float_json(y),
        "wkb": b64(_WKB_POINT.pack(1, 1, x, y)),
        "srid": None,
    }


def geometry(t: str) -> dict:
    """PostGIS hex EWKB -> {wkb: the EWKB bytes, srid: embedded SRID or 0} (PostgisGeometry)."""
    ewkb = bytes.fromhex(t)
    if len(ewkb) < 9:
        raise ValueError("Invalid EWKB length")
    order = "<" if ewkb[0] else ">"
    (geom_type,) = _struct.unpack_from(order + "I", ewkb, 1)
    srid = _struct.unpack_from(order + "i", ewkb, 5)[0] if geom_type & 0x20000000 else 0
    return {"wkb": b64(ewkb), "srid": srid}
