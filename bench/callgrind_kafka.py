"""Instructions per record of the Kafka output's stream path, for callgrind (load-independent):

    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=OUT.%p \
        .venv/bin/python bench/callgrind_kafka.py --records 20000 --path fast|pure [--no-write]
    (--no-write: start-up, the broker's topic, the records built, the first one written; subtract)

N stream records (~3.3 KB values, three context headers, as `bench_kafka.py --replay`) written by
`KafkaOutput.produce_line` (the dispatcher's call for an INSERT) to a Tansu broker with lz4 and Connect's delivery
settings, then `commit()` waits for every delivery report (served on the main thread). `--path fast` is the
output on emulator.fastkafka, `pure` on confluent-kafka's producer (DBZ_EMULATOR_PURE_PYTHON's path). The
records are built in both runs, so (total - total(--no-write)) / N is the output's per record: main thread (the
`-01` file of --separate-threads) and all threads (librdkafka's too; the broker is another process, not
counted)."""

from __future__ import annotations

import argparse
import json

from emulator.config import from_dict
from emulator.outputs.kafka import kafka_output
from emulator.testing.tansu import TansuBroker


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=20000)
    ap.add_argument("--path", choices=("fast", "pure"), default="fast")
    ap.add_argument("--no-write", action="store_true", help="build the records, write only the first")
    args = ap.parse_args()
    props = {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "plugin.name": "pgoutput",
        "topic.prefix": "cg",
        "database.hostname": "localhost",
        "database.user": "postgres",
        "database.dbname": "postgres",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        "producer.compression.type": "lz4",
        "offset.flush.timeout.ms": "600000",  # valgrind is slow: the final commit waits as long as it takes
    }
    field = b'{"type":"int32","optional":false,"field":"c%02d"},'
    value = (
        b'{"schema":{"type":"struct","fields":['
        + b"".join(field % i for i in range(60))
        + b'],"optional":false,"name":"cg.public.t.Envelope"},"payload":{"before":null,"after":{"id":1}}}'
    )
    headers = [
        ("__debezium.context.connectorLogicalName", b'"cg"'),
        ("__debezium.context.taskId", b'"0"'),
        ("__debezium.context.connectorName", b'"postgresql"'),
    ]
    tail = b',"headers":' + json.dumps([[k, json.loads(v)] for k, v in headers]).encode() + b"}\n"
    key_fmt = b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"cg.public.t.Key"},"payload":{"id":%d}}'
    topic = "cg.public.t"
    lines = []
    for i in range(args.records + 1):
        key = key_fmt % i
        head = b'{"key":' + key + b',"value":'
        lines.append((head + value + tail, len(key), len(head)))
    with TansuBroker() as broker:
        out = kafka_output(from_dict(props), broker.bootstrap, fast=args.path == "fast")
        line, klen, vstart = lines[0]
        out.produce_line(topic, line, klen, vstart, len(tail), headers)  # the topic, its route
        assert out.commit()
        produce_line = out.produce_line
        vtail = len(tail)
        for line, klen, vstart in [] if args.no_write else lines[1:]:
            produce_line(topic, line, klen, vstart, vtail, headers)
        assert out.commit()
        out.close()
    print(type(out).__name__, args.records, "built", "" if args.no_write else "and written")


if __name__ == "__main__":
    main()
