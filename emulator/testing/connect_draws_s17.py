"""Options of the data-plane campaign that session 17 added (emulator.testing.connect_draws and its extra
streams never set them): the CloudEventsConverter's metadata sources — `metadata.source=header` with the
documented `HeaderFrom$Value` of `source,op,transaction`, `id` / `type` / `traceparent` / `dataSchemaName` from
`InsertHeader` headers, `opentelemetry.tracing.attributes.enable`, `schema.data.name.source.header.enable`,
`schema.name.adjustment.mode`, `serializer.type=avro` (from seed 90) —; `Cast` of several fields, `MaskField`
replacements, `ValueToKey` of two fields, `TimestampConverter` formats and `unix.precision=milliseconds`,
`RegexRouter` with Java's named groups and `$0`, a last `Flatten$Key`, JsonConverter `schemas.cache.size`,
`errors.deadletterqueue.*` beside `errors.tolerance=all` (from seed 90), the AvroConverter's
`enhanced.avro.schema.support=true` (from seed 91).

From random streams of their own, applied after the others: older seeds keep their workloads, chains and
converters, and in some trials gain properties, stages added before or after the chain, or changed options of
stages the chain already has. From seed 89 on (CE_FROM_SEED), nearly half of the trials whose chain keeps the
envelope get a CloudEventsConverter for their value (and most of them JsonConverter headers), so that campaigns
reach these options (CloudEvents was drawn in ~3 % of the trials).
"""

from __future__ import annotations

import random

D = "io.debezium.transforms."
K = "org.apache.kafka.connect.transforms."
P = "org.apache.kafka.connect.transforms.predicates."
JSON = "org.apache.kafka.connect.json.JsonConverter"
CE = "io.debezium.converters.CloudEventsConverter"
KEY_CHANGING = ("$Key", "ValueToKey", "outbox.EventRouter", "ByLogicalTableRouter")
# the change events' topics (not heartbeats, schema changes or transaction markers, which have no `op`)
TABLE_TOPICS = r"dbserver1\.(public|inventory)\..*"


def _aliases(props: dict[str, str]) -> list[str]:
    return [a for a in props.get("transforms", "").split(",") if a]


def _predicates(props: dict[str, str]) -> list[str]:
    return [p for p in props.get("predicates", "").split(",") if p]


def _json_headers(props: dict[str, str]) -> bool:
    """Header bytes the CloudEventsConverter can read back (a JsonConverter with schemas)."""
    return (
        props.get("header.converter") == JSON
        and props.get("header.converter.schemas.enable", "true").strip().lower() == "true"
    )


def _stage(props: dict[str, str], alias: str, opts: dict[str, str], first: bool = False) -> None:
    aliases = _aliases(props)
    props["transforms"] = ",".join([alias, *aliases] if first else [*aliases, alias])
    for k, v in opts.items():
        props[f"transforms.{alias}.{k}"] = v


def _predicate(props: dict[str, str], name: str, opts: dict[str, str]) -> None:
    props["predicates"] = ",".join([*_predicates(props), name])
    for k, v in opts.items():
        props[f"predicates.{name}.{k}"] = v


def _cloudevents(rng: random.Random, props: dict[str, str]) -> None:
    pre = "value.converter."
    if rng.random() < 0.3:
        props[pre + "schema.name.adjustment.mode"] = rng.choice(("none", "avro", "avro_unicode"))
    # header bytes other than JsonConverter-with-schemas fail every record: drawn, but rarely
    if not _json_headers(props) and rng.random() >= 0.25:
        return
    r = rng.random()
    if r < 0.5:
        # Debezium's documented pairing: the metadata copied into headers, metadata.source=header
        fields = rng.choice(("source,op,transaction", "source,op"))
        _stage(
            props,
            "hf",
            {
                "type": K + "HeaderFrom$Value",
                "fields": fields,
                "headers": fields,
                "operation": "copy",
                "predicate": "tables",
            },
            first=True,
        )
        _predicate(props, "tables", {"type": P + "TopicNameMatches", "pattern": TABLE_TOPICS})
        if rng.random() < 0.85:
            props["tombstones.on.delete"] = "false"  # HeaderFrom fails on a tombstone (the docs set it)
        if rng.random() < 0.6:
            opts = {"type": D + "ExtractNewRecordState"}
            if rng.random() < 0.4:
                opts["delete.tombstone.handling.mode"] = rng.choice(("rewrite", "drop"))
            _stage(props, "uw", opts)
        props[pre + "metadata.source"] = rng.choice(
            (
                "header,id:generate,type:generate",
                "header,id:generate,type:generate,traceparent:header,dataSchemaName:generate",
                "header",  # what the docs show: every record fails for want of an `id` header
            )
        )
    elif r < 0.9:
        # the record's metadata from the value, some CloudEvents fields from headers
        src = ["value"]
        for fld, literal in (("id", "ev_1"), ("type", "com.example.Changed")):
            if rng.random() < 0.2:
                src.append(f"{fld}:header")
                if rng.random() < 0.9:
                    _stage(
                        props,
                        f"ih_{fld}",
                        {"type": K + "InsertHeader", "header": fld, "value.literal": literal},
                    )
            else:
                src.append(f"{fld}:generate")
        if rng.random() < 0.5:
            props[pre + "opentelemetry.tracing.attributes.enable"] = "true"
            src.append("traceparent:header")
            if rng.random() < 0.85:
                lit = rng.choice(("tp_a", "span.x"))
                _stage(
                    props,
                    "ih_tp",
                    {"type": K + "InsertHeader", "header": "traceparent", "value.literal": lit},
                )
        if rng.random() < 0.5:
            props[pre + "schema.data.name.source.header.enable"] = "true"
            src.append("dataSchemaName:header")
            if rng.random() < 0.85:
                lit = rng.choice(("com.example.Data", "Payload"))
                _stage(
                    props,
                    "ih_dn",
                    {"type": K + "InsertHeader", "header": "dataSchemaName", "value.literal": lit},
                )
        props[pre + "metadata.source"] = ",".join(src)
    else:
        # tracing alone: traceparent from a header that is not there (every record fails, as in Debezium)
        props[pre + "opentelemetry.tracing.attributes.enable"] = "true"


def _chain_options(rng: random.Random, props: dict[str, str], cols: list[str]) -> None:
    """Options of the stages the chain already has."""
    for a in _aliases(props):
        pre = f"transforms.{a}."
        t = props.get(pre + "type", "").removeprefix(K).removeprefix(D)
        if t == "Cast$Value" and rng.random() < 0.5:
            col = rng.choice([c for c in cols if c != "id"] or ["id"])
            props[pre + "spec"] += f",{col}:" + rng.choice(("string", "int32", "float64", "boolean"))
        elif t == "MaskField$Value" and rng.random() < 0.5:
            props[pre + "replacement"] = rng.choice(("0", "-1", "n/a", "1.5"))
        elif t == "ValueToKey" and rng.random() < 0.4:
            props[pre + "fields"] = "id," + rng.choice([c for c in cols if c != "id"] or ["id"])
        elif t == "TimestampConverter$Value" and rng.random() < 0.5:
            target = props.get(pre + "target.type")
            if target == "string":
                props[pre + "format"] = rng.choice(
                    ("yyyyMMddHHmmss", "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", "HH:mm")
                )
            elif target == "unix":
                props[pre + "unix.precision"] = "milliseconds"
        elif t == "RegexRouter" and rng.random() < 0.4:
            regex, repl = rng.choice(
                (
                    (r"dbserver1\.(?<schema>public|inventory)\.(?<table>.*)", "${table}.${schema}"),
                    (r"dbserver1\..*", "$0.v2"),
                )
            )
            props[pre + "regex"], props[pre + "replacement"] = regex, repl


# stages after which the value is still the change event envelope (CloudEvents reads its before / after / source)
ENVELOPE_KEEPING = (
    "RegexRouter",
    "InsertHeader",
    "DropHeaders",
    "TimezoneConverter",
    "partitions.PartitionRouting",
    "ByLogicalTableRouter",
    "SchemaChangeEventFilter",
    "Filter",
    "ExtractChangedRecordState",
)
# seeds from which trials may be turned into CloudEvents ones (older seeds keep their converters)
CE_FROM_SEED = 89
LATER_FROM_SEED = 90  # draws added after seed 89 ran (it keeps its trials): the Avro envelope, the DLQ
ENHANCED_FROM_SEED = 91  # and after seed 90 started


def _envelope_kept(props: dict[str, str]) -> bool:
    for a in _aliases(props):
        t = props.get(f"transforms.{a}.type", "").removeprefix(K).removeprefix(D)
        if t not in ENVELOPE_KEEPING and not (
            t == "HeaderFrom$Value" and props.get(f"transforms.{a}.operation") == "copy"
        ):
            return False
    return True


def _to_cloudevents(rng: random.Random, props: dict[str, str], scope: str) -> None:
    """The value converter replaced by a CloudEventsConverter (JSON envelope, JSON or Avro data)."""
    for k in [k for k in props if k.startswith("value.converter")]:
        del props[k]
    props["value.converter"] = CE
    if rng.random() < 0.35:
        props["value.converter.data.serializer.type"] = "avro"
        props["value.converter.avro.schema.registry.url"] = f"mock://{scope}"
    elif rng.random() < 0.3:
        props["value.converter.json.schemas.enable"] = "false"
    if rng.random() < 0.2:
        props["value.converter.extension.attributes.enable"] = "false"
    if rng.random() < 0.7 and not _json_headers(props):
        # users pairing metadata headers with CloudEvents set JsonConverter headers (Debezium's docs)
        for k in [k for k in props if k.startswith("header.converter")]:
            del props[k]
        props["header.converter"] = JSON
        props["header.converter.schemas.enable"] = "true"


def add_s17(
    seed: int, trial: int, db: str, workload: str, props: dict[str, str], cols: list[str]
) -> dict[str, str]:
    out = dict(props)
    ce = random.Random(f"s17ce-{seed}/{trial}/{db}")
    if out.get("value.converter") == CE and ce.random() < 0.7:
        _cloudevents(ce, out)
    elif seed >= CE_FROM_SEED and out.get("value.converter") != CE and _envelope_kept(out):
        if ce.random() < 0.45:
            _to_cloudevents(ce, out, f"s{seed}-{trial}")
            _cloudevents(ce, out)
    # (a stream of its own) an Avro CloudEvents envelope where the data is Avro
    av = random.Random(f"s17av-{seed}/{trial}/{db}")
    if (
        seed >= LATER_FROM_SEED
        and out.get("value.converter") == CE
        and out.get("value.converter.data.serializer.type") == "avro"
    ):
        if av.random() < 0.35:
            out["value.converter.serializer.type"] = "avro"
    # (a stream of its own) a dead letter queue beside errors.tolerance=all, which users copy from sink
    # configurations: Connect reads it for sink connectors only
    dlq = random.Random(f"s17dlq-{seed}/{trial}/{db}")
    if seed >= LATER_FROM_SEED and out.get("errors.tolerance") == "all" and dlq.random() < 0.4:
        out["errors.deadletterqueue.topic.name"] = "dlq"
        if dlq.random() < 0.5:
            out["errors.deadletterqueue.context.headers.enable"] = "true"
    # (a stream of its own, from seed 91: accepted after seed 90 started) AvroConverter enhanced.avro.schema.support
    enh = random.Random(f"s17enh-{seed}/{trial}/{db}")
    for pre in ("key.converter.", "value.converter.", "value.converter.avro."):
        if seed >= ENHANCED_FROM_SEED and out.get(pre + "schema.registry.url") and enh.random() < 0.3:
            out[pre + "enhanced.avro.schema.support"] = "true"
    rng = random.Random(f"s17-{seed}/{trial}/{db}")
    if rng.random() >= 0.5:
        return out
    _chain_options(rng, out, cols)
    for part in ("key", "value"):
        if out.get(f"{part}.converter") == JSON and rng.random() < 0.1:
            out[f"{part}.converter.schemas.cache.size"] = rng.choice(("1", "16"))
    types = [out.get(f"transforms.{a}.type", "") for a in _aliases(out)]
    if types and not any(k in t for t in types for k in KEY_CHANGING) and rng.random() < 0.12:
        opts = {"type": K + "Flatten$Key"}
        if rng.random() < 0.5:
            opts["delimiter"] = "__"
        _stage(out, "fk", opts)
    return out
