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

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from sink.split import ARROW, SCHEMA
from sink.types import PLACEHOLDER

STATS = "stats"  # the summary rows' column (null on record rows)
READ_SCHEMA = SCHEMA + f", {STATS} string"
READ_ARROW = ARROW.append(pa.field(STATS, pa.string()))
PH_B64 = "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ"  # the placeholder in a bytes column (base64)
TRUNCATE = '"op":"t"'
OLDKEY = "__debezium.oldkey"


class Survey:
    """Counts one partition's record batches (`add`, which returns the batch with a null `stats` column) and
    gives its summary rows (`summary`)."""

    def __init__(self) -> None:
        self.topic: str | None = None
        self.part: str | None = None
        self.groups: dict[tuple, list] = {}  # (kfp, vfp) -> [n, first pos, placeholders, truncates, old keys]
        self.texts: dict[int, str] = {}  # fingerprint -> schema text, as the partition first sent it

    def add(self, rb: pa.RecordBatch) -> pa.RecordBatch:
        n = rb.num_rows
        if n:
            if self.topic is None:
                self.topic, self.part = rb.column("topic")[0].as_py(), rb.column("part")[0].as_py()
            vp, hdr = rb.column("vp"), rb.column("hdr")
            ph = pc.or_(pc.match_substring(vp, PLACEHOLDER), pc.match_substring(vp, PH_B64))
            t = pa.table(
                {
                    "kfp": rb.column("kfp"),
                    "vfp": rb.column("vfp"),
                    "pos": rb.column("pos"),
                    "ph": ph,
                    "tr": pc.cast(pc.match_substring(vp, TRUNCATE), pa.int64()),
                    "hk": pc.match_substring(hdr, OLDKEY),
                }
            )
            agg = t.group_by(["kfp", "vfp"], use_threads=False).aggregate(
                [("pos", "count"), ("pos", "min"), ("ph", "any"), ("tr", "sum"), ("hk", "any")]
            )
            for kfp, vfp, cnt, first, anyph, ntr, anyhk in zip(
                *(
                    agg.column(c).to_pylist()
                    for c in ("kfp", "vfp", "pos_count", "pos_min", "ph_any", "tr_sum", "hk_any")
                )
            ):
                g = self.groups.get((kfp, vfp))
                if g is None:
                    self.groups[(kfp, vfp)] = [cnt, first, bool(anyph), ntr or 0, bool(anyhk)]
                else:
                    g[0] += cnt
                    g[1] = min(g[1], first)
                    g[2] = g[2] or bool(anyph)
                    g[3] += ntr or 0
                    g[4] = g[4] or bool(anyhk)
            for fc, tc in (("kfp", "kschema"), ("vfp", "vschema")):
                has = pc.is_valid(rb.column(tc))
                if pc.any(has).as_py():
                    fps = pc.filter(rb.column(fc), has).to_pylist()
                    for fp, text in zip(fps, pc.filter(rb.column(tc), has).to_pylist()):
                        self.texts.setdefault(fp, text)
        return pa.RecordBatch.from_arrays([*rb.columns, pa.nulls(n, pa.string())], schema=READ_ARROW)

    def summary(self) -> pa.RecordBatch | None:
        if not self.groups:
            return None
        rows = list(self.groups.items())
        k = len(rows)
        stats = [
            orjson.dumps({"n": n, "ph": ph, "tr": tr > 0, "nt": tr, "hk": hk}).decode()
            for _, (n, _, ph, tr, hk) in rows
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
