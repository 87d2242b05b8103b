"""`python -m sink show TABLE [--history KEY]`: a mirror or history table, readably."""

from __future__ import annotations

import os

from sink.errors import UsageError


def _key_filter(t, key: str):
    """`KEY` is a value of the table's single key column, or `col=value,...`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from sink.history import END, START

    names = [c for c in t.column_names if not c.startswith("__") and c not in (START, END)]
    pairs = [p.split("=", 1) for p in key.split(",")] if "=" in key else [[names[0], key]]
    mask = None
    for col, val in pairs:
        if col not in t.column_names:
            raise UsageError(f"--history {key}: no column {col!r} (columns: {', '.join(names)})")
        typ = t.schema.field(col).type
        try:
            v = pa.scalar(val).cast(typ)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise UsageError(f"--history {key}: {val!r} is not a value of {col} ({typ})") from None
        m = pc.equal(t.column(col), v)
        mask = m if mask is None else pc.and_(mask, m)
    return t.filter(mask)


def show(path: str, history: str | None, limit: int) -> int:
    from deltalake import DeltaTable

    from sink.delta import META
    from sink.history import START

    if not DeltaTable.is_deltatable(path):
        raise UsageError(f"{path}: not a Delta table written by the sink")
    dt = DeltaTable(path)
    t = dt.to_pyarrow_table()
    is_history = START in t.column_names
    if history is not None:
        if not is_history:
            raise UsageError(f"{path}: --history needs a history table (written with --scd 2)")
        t = _key_filter(t, history)
    t = t.drop_columns([c for c in t.column_names if c in META])
    order = [START] if is_history else []
    keys = [c for c in t.column_names if c not in ("__START_AT", "__END_AT")][:1]
    if len(t):
        t = t.sort_by(
            [(c, "ascending") for c in [*keys, *order]] if history is None else [(START, "ascending")]
        )
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 50, "display.max_colwidth", 40):
        df = t.slice(0, limit).to_pandas()
        kind = "history" if is_history else "mirror"
        print(
            f"{os.path.basename(os.path.normpath(path))}: {kind} table, version {dt.version()}, {len(t)} rows"
            + (f" (first {limit})" if len(t) > limit else "")
        )
        if len(df):
            print(df.to_string(index=False))
    return 0
