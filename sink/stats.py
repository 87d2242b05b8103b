"""The micro-batch's survey, counted by the readers where the records are read (executors, pyarrow kernels).

Planning a batch needs, per topic and (key schema, value schema) fingerprint group: the schema texts, the
number of records, the first position, and whether the group holds TOAST placeholders, truncates or key
changes (`sink.plan.survey`). That was an aggregation over the cached batch: a job of its own per micro-batch
(a map and a reduce stage, and the JVM's byte-by-byte `contains` over every value payload, three times). Now
each reader partition counts its record batches as it yields them (`match_substring` over the payload column,
a hash group-by on the fingerprints) and ends with one summary row per group: the record columns (`topic`,
`part`, `pos` = the group's first position, `kfp`, `vfp`, the schema texts) and `stats`, a small JSON object;
`stats` is null on every record row. The survey then collects only the summary rows.
"""

from __future__ import annotations

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from sink import reader_keys
from sink.split import ARROW, SCHEMA
from sink.types import PLACEHOLDER

STATS = "stats"  # the summary rows' column (null on record rows)
# the record columns, the reader's key/position columns (`sink.reader_keys`), the summary
READ_SCHEMA = SCHEMA + ", " + reader_keys.SCHEMA + f", {STATS} string"
READ_ARROW = pa.schema(
    [*ARROW, *(pa.field(n, t) for n, t in reader_keys.COLUMNS), pa.field(STATS, pa.string())]
)
PH_B64 = "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ"  # the placeholder in a bytes column (base64)
TRUNCATE = '"op":"t"'
OLDKEY = "__debezium.oldkey"
KC = [n for n, _ in reader_keys.COLUMNS].index("kc")


def haystack(col: pa.Array) -> bytes | None:
    """The bytes `matches` searches: a string column's data buffer, copied once (b"" when it has none), or None
    when the column is not a plain string array (then each value is tested)."""
    bufs = col.buffers()
    if pa.types.is_string(col.type) and len(bufs) == 3:
        return b"" if bufs[2] is None else bufs[2].to_pybytes()
    return None


_OWN = object()  # `matches` without a haystack: it copies the column's buffer itself


def matches(col: pa.Array, needle: str, hay: bytes | None | object = _OWN) -> pa.Array:
    """`match_substring(col, needle)`, answered from one search of the column's data buffer when the needle is
    in none of its bytes (the common case: no placeholder, truncate or key change in a block). Arrow's
    `match_substring` looks at every value: ~4.7 ms per block's payloads (2.5 MB) against ~0.5 ms for
    Python's search of the copied buffer, three of them per block (~3 µs of the readers' ~19 per record).
    The buffer may hold bytes of values outside a sliced array: a hit there only means the exact test.
    `hay` is `haystack(col)`, copied once for all the needles of a column."""
    if hay is _OWN:
        hay = haystack(col)
    if hay is not None and needle.encode() not in hay:
        return pa.array(np.zeros(len(col), bool))  # false for a null too: the counts below are the same
    return pc.match_substring(col, needle)


class Survey:
    """Counts one partition's record batches (`add`, which returns the batch with a null `stats` column) and
    gives its summary rows (`summary`)."""

    def __init__(self, known: dict | None = None) -> None:
        # the partition's splitter's {schema text (bytes): fingerprint} (`sink.split.Batcher.known`): a
        # batch's rows may come before the row that carries their schema text (the per-line split's rows
        # are flushed after the block's)
        self.known = known if known is not None else {}
        self.topic: str | None = None
        self.part: str | None = None
        # (kfp, vfp) -> [n, first pos, placeholders, truncates, old keys, payloads the reader could not read,
        # payloads whose canonical key it left to the JVM]
        self.groups: dict[tuple, list] = {}
        self.texts: dict[int, str] = {}  # fingerprint -> schema text, as the partition first sent it

    def add(self, rb: pa.RecordBatch) -> pa.RecordBatch:
        n = rb.num_rows
        keys = [pa.nulls(n, t) for _, t in reader_keys.COLUMNS]
        if n:
            if self.topic is None:
                self.topic, self.part = rb.column("topic")[0].as_py(), rb.column("part")[0].as_py()
            for fc, tc in (("kfp", "kschema"), ("vfp", "vschema")):
                has = pc.is_valid(rb.column(tc))
                if pc.any(has).as_py():
                    fps = pc.filter(rb.column(fc), has).to_pylist()
                    for fp, text in zip(fps, pc.filter(rb.column(tc), has).to_pylist()):
                        self.texts.setdefault(fp, text)
            need = {*pc.unique(rb.column("kfp")).to_pylist(), *pc.unique(rb.column("vfp")).to_pylist()}
            if any(fp is not None and fp not in self.texts for fp in need):  # texts not seen in a row yet
                for text, fp in self.known.items():
                    if fp not in self.texts:
                        self.texts[fp] = text.decode() if isinstance(text, bytes) else text
            vp, hdr = rb.column("vp"), rb.column("hdr")
            keys = reader_keys.columns(vp, rb.column("vfp"), rb.column("kp"), rb.column("kfp"), self.texts)
            unread = pc.and_(pc.is_valid(vp), pc.invert(keys[-1]))
            # payloads of a key whose canonical form the reader left to the JVM (`sink.onepass` needs none)
            nokc = pc.and_(pc.and_(pc.is_valid(vp), pc.is_valid(rb.column("kp"))), pc.is_null(keys[KC]))
            hay = haystack(vp)  # one copy of the payloads' buffer for the three needles
            ph = pc.or_(matches(vp, PLACEHOLDER, hay), matches(vp, PH_B64, hay))
            t = pa.table(
                {
                    "kfp": rb.column("kfp"),
                    "vfp": rb.column("vfp"),
                    "pos": rb.column("pos"),
                    "ph": ph,
                    "tr": pc.cast(matches(vp, TRUNCATE, hay), pa.int64()),
                    "hk": matches(hdr, OLDKEY),
                    "nr": pc.cast(unread, pa.int64()),
                    "nk": pc.cast(nokc, pa.int64()),
                }
            )
            agg = t.group_by(["kfp", "vfp"], use_threads=False).aggregate(
                [
                    ("pos", "count"),
                    ("pos", "min"),
                    ("ph", "any"),
                    ("tr", "sum"),
                    ("hk", "any"),
                    ("nr", "sum"),
                    ("nk", "sum"),
                ]
            )
            for kfp, vfp, cnt, first, anyph, ntr, anyhk, nr, nk in zip(
                *(
                    agg.column(c).to_pylist()
                    for c in (
                        "kfp",
                        "vfp",
                        "pos_count",
                        "pos_min",
                        "ph_any",
                        "tr_sum",
                        "hk_any",
                        "nr_sum",
                        "nk_sum",
                    )
                )
            ):
                g = self.groups.get((kfp, vfp))
                if g is None:
                    self.groups[(kfp, vfp)] = [
                        cnt,
                        first,
                        bool(anyph),
                        ntr or 0,
                        bool(anyhk),
                        nr or 0,
                        nk or 0,
                    ]
                else:
                    g[0] += cnt
                    g[1] = min(g[1], first)
                    g[2] = g[2] or bool(anyph)
                    g[3] += ntr or 0
                    g[4] = g[4] or bool(anyhk)
                    g[5] += nr or 0
                    g[6] += nk or 0
        return pa.RecordBatch.from_arrays([*rb.columns, *keys, pa.nulls(n, pa.string())], schema=READ_ARROW)

    def summary(self) -> pa.RecordBatch | None:
        if not self.groups:
            return None
        rows = list(self.groups.items())
        k = len(rows)
        stats = [
            orjson.dumps({"n": n, "ph": ph, "tr": tr > 0, "nt": tr, "hk": hk, "nr": nr, "nk": nk}).decode()
            for _, (n, _, ph, tr, hk, nr, nk) in rows
        ]
        cols = {
            "topic": pa.array([self.topic] * k, pa.string()),
            "part": pa.array([self.part] * k, pa.string()),
            "pos": pa.array([g[1] for _, g in rows], pa.int64()),
            "kfp": pa.array([kfp for (kfp, _), _ in rows], pa.int64()),
            "kschema": pa.array([self.texts.get(kfp) for (kfp, _), _ in rows], pa.string()),
            "kp": pa.nulls(k, pa.string()),
            "vfp": pa.array([vfp for (_, vfp), _ in rows], pa.int64()),
            "vschema": pa.array([self.texts.get(vfp) for (_, vfp), _ in rows], pa.string()),
            "vp": pa.nulls(k, pa.string()),
            "hdr": pa.nulls(k, pa.string()),
            **{c: pa.nulls(k, t) for c, t in reader_keys.COLUMNS},
            STATS: pa.array(stats, pa.string()),
        }
        return pa.RecordBatch.from_arrays([cols[f.name] for f in READ_ARROW], schema=READ_ARROW)


def counted(batches, survey: Survey):
    """The partition's record batches with a null `stats` column, then its summary rows."""
    for rb in batches:
        yield survey.add(rb)
    s = survey.summary()
    if s is not None:
        yield s
