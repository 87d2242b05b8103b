"""Options of the data-plane campaign that session 16 found the draws missing (emulator.testing.connect_draws and
connect_draws_extra never set them): `ExtractNewRecordState` `add.fields` / `add.headers` of `transaction.*` and
the microsecond / nanosecond timestamps and per-connector source fields, `route.by.field`; `HeaderFrom$Key`;
`InsertHeader` literals Connect types as other than strings; the AvroConverter's `latest.compatibility.strict`
beside `use.latest.version`; the CloudEventsConverter's `schema.cloudevents.name`.

From a random stream of their own, applied after the others: older seeds keep their workloads, chains and
converters and only gain properties (or a last `HeaderFrom$Key` stage) in some trials.
"""

from __future__ import annotations

import random

D = "io.debezium.transforms."
K = "org.apache.kafka.connect.transforms."
P = "org.apache.kafka.connect.transforms.predicates."

# fields of the envelope `add.fields` / `add.headers` may name (struct.field), per database
FIELDS = {
    "pg": ("source.ts_us", "source.ts_ns", "ts_us", "ts_ns", "source.sequence", "source.xmin", "source.txId"),
    "mariadb": ("source.ts_us", "ts_ns", "source.gtid", "source.row", "source.server_id", "source.thread"),
}
TX_FIELDS = ("transaction.id", "transaction.total_order", "transaction.data_collection_order")
# a string column of each workload's tables, for route.by.field (a table without it fails the record)
ROUTE_COLUMNS = {
    "pg_connect.sql": ("email", "name"),
    "pg_types_connect.sql": ("label",),
    "pg_more_connect.sql": ("kind", "msg"),
    "pg_key_defaults_connect.sql": ("b", "g"),
    "mariadb_connect.sql": ("email", "name"),
    "mariadb_more_connect.sql": ("msg", "note"),
    "mariadb_converters_connect.sql": ("c1",),
}
KEY_CHANGING = ("$Key", "ValueToKey", "outbox.EventRouter", "ByLogicalTableRouter")


def _aliases(props: dict[str, str]) -> list[str]:
    return [a for a in props.get("transforms", "").split(",") if a]


def _unwrap(rng: random.Random, db: str, workload: str, props: dict[str, str], pre: str) -> None:
    if rng.random() < 0.4:
        extra = rng.sample(FIELDS[db], rng.randint(1, 2))
        if rng.random() < 0.5:
            extra.append(rng.choice(TX_FIELDS))
            if rng.random() < 0.7:
                props["provide.transaction.metadata"] = "true"
        old = [f for f in props.get(pre + "add.fields", "").split(",") if f]
        props[pre + "add.fields"] = ",".join(old + [f for f in extra if f not in old])
    if rng.random() < 0.2:
        hs = [rng.choice(FIELDS[db])]
        if rng.random() < 0.5:
            hs.append(rng.choice(TX_FIELDS))
            props["provide.transaction.metadata"] = "true"
        old = [h for h in props.get(pre + "add.headers", "").split(",") if h]
        props[pre + "add.headers"] = ",".join(old + [h for h in hs if h not in old])
    if rng.random() < 0.15:
        props[pre + "route.by.field"] = rng.choice(ROUTE_COLUMNS[workload])


def add_s16(seed: int, trial: int, db: str, workload: str, props: dict[str, str]) -> dict[str, str]:
    out = dict(props)
    # (later in session 16, a stream of its own so that seeds 84-85 keep their trials) the CloudEvents envelope's
    # schema name
    ce = random.Random(f"s16ce-{seed}/{trial}/{db}")
    if out.get("value.converter") == "io.debezium.converters.CloudEventsConverter" and ce.random() < 0.4:
        out["value.converter.schema.cloudevents.name"] = "com.example.CloudEvent"
    rng = random.Random(f"s16-{seed}/{trial}/{db}")
    if rng.random() >= 0.5:
        return out
    aliases = _aliases(out)
    types = {a: out.get(f"transforms.{a}.type", "") for a in aliases}
    for a, t in types.items():
        pre = f"transforms.{a}."
        if t == D + "ExtractNewRecordState":
            _unwrap(rng, db, workload, out, pre)
        elif t == K + "InsertHeader" and rng.random() < 0.4:
            out[pre + "value.literal"] = rng.choice(("-5", "3000000000", "false", "x y z", "127"))
    for part in ("key", "value"):
        pre = f"{part}.converter."
        if (
            out.get(pre + "use.latest.version") == "true"
            and out.get(pre + "auto.register.schemas") == "false"
        ):
            if rng.random() < 0.5:
                out[pre + "latest.compatibility.strict"] = "false"
    if aliases and not any(k in t for t in types.values() for k in KEY_CHANGING) and rng.random() < 0.15:
        # the key's id copied to a header (keyless tables' null keys fail it unless guarded)
        alias, p = (
            f"t{len(aliases)}",
            f"p{len(out.get('predicates', '').split(',')) if out.get('predicates') else 0}",
        )
        out["transforms"] = ",".join(aliases + [alias])
        pre = f"transforms.{alias}."
        out[pre + "type"] = K + "HeaderFrom$Key"
        out[pre + "fields"] = "id"
        out[pre + "headers"] = "key_id"
        out[pre + "operation"] = "copy"
        if rng.random() < 0.7:
            preds = [x for x in out.get("predicates", "").split(",") if x]
            out["predicates"] = ",".join(preds + [p])
            out[f"predicates.{p}.type"] = P + "RecordIsTombstone"
            out[pre + "predicate"] = p
            out[pre + "negate"] = "true"
    return out
