"""The configuration front door (issue 14 item 2, issue 12 item 5, issue 16 item 3).

* any value of a non-regex property works (passwords, heartbeat.action.query with `(`, `[`, `\\`, unicode),
  shown on a real PostgreSQL;
* an invalid value of a regex-bearing property is exit 2 with one line naming it;
* every property of Debezium 3.6's documentation has a row, and the properties (and values) the emulator
  does not implement are refused at start - exit 2, one line naming the property;
* a typo is exit 2 with "did you mean ...";
* docs/properties.md is generated from the table and up to date.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from emulator.api import Capture
from emulator.config import ConfigError, from_dict, property_spec
from emulator.testing.pgserver import PgServer

ROOT = Path(__file__).resolve().parent.parent
DOC_LISTS = ROOT / "tests" / "data" / "debezium-3.6-properties"

PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "topic.prefix": "fd",
    "database.hostname": "127.0.0.1",
    "database.user": "postgres",
    "database.dbname": "postgres",
    "plugin.name": "pgoutput",
}
MARIA = {
    "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
    "topic.prefix": "fd",
    "database.hostname": "127.0.0.1",
    "database.user": "u",
    "database.server.id": "7",
}
METACHARACTERS = ["p(a[ss", "x\\y\\", "ÿ€😀 (", "a)b]c{d}e*f+g?h|i^j$", "'; DROP TABLE x; --", "[", "("]


def _run_cli(tmp_path: Path, props: dict[str, str]) -> subprocess.CompletedProcess:
    cfg = tmp_path / "c.properties"
    cfg.write_text("".join(f"{k}={v}\n" for k, v in props.items()).replace("\\", "\\\\"), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "emulator", "run", str(cfg)], capture_output=True, text=True, timeout=60
    )


# -- values that are just text ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", METACHARACTERS)
def test_any_value_of_a_plain_property_is_accepted(value: str) -> None:
    from emulator.filters import Filters

    config = from_dict(
        {
            **PG,
            "database.password": value,
            "heartbeat.action.query": f"SELECT '{value}'",
            "slot.stream.params": value,
            "unavailable.value.placeholder": value,
        }
    )
    Filters(config)  # compiled every property value as a regex: `(` crashed start-up
    assert config.get("database.password") == value


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        yield server


def test_metacharacters_in_password_and_heartbeat_query_run_on_a_real_database(pg, tmp_path) -> None:
    with pg.connect() as c:
        c.execute("CREATE TABLE IF NOT EXISTS public.hb (id int PRIMARY KEY, note text)")
        c.execute("CREATE TABLE IF NOT EXISTS public.t (id int PRIMARY KEY)")
    value = "p(a[ss\\w ÿ"
    props = pg.connector_properties(
        **{
            "topic.prefix": "meta",
            "slot.name": "meta",
            "publication.name": "meta_pub",
            "database.password": value,
            "heartbeat.interval.ms": "100",
            "heartbeat.action.query": "INSERT INTO public.hb VALUES (1, '([\\ ÿ') ON CONFLICT (id) DO NOTHING",
            "snapshot.mode": "no_data",
        }
    )
    cap = Capture(props).start()
    try:
        deadline = time.monotonic() + 60
        while not getattr(cap.runner.connector, "streaming", False):
            assert cap.error is None and time.monotonic() < deadline, cap.error
            time.sleep(0.05)
        with pg.connect() as c:
            c.execute("INSERT INTO public.t VALUES (1)")
        assert cap.wait_for("meta.public.t", timeout=60)["value"]["payload"]["op"] == "c"
        while True:  # the heartbeat action query ran, with its metacharacters intact
            with pg.connect() as c:
                rows = c.execute("SELECT note FROM public.hb").fetchall()
            if rows or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert rows == [("([\\ ÿ",)]
    finally:
        cap.stop()


@pytest.mark.parametrize(
    "prop,value",
    [
        ("column.mask.with.3.chars", "public.t.(x"),
        ("column.truncate.to.2.chars", "[a-"),
        ("table.include.list", "public.(t"),
        ("message.key.columns", "public.(t:id"),
        ("message.key.columns", "no-colon-here"),
        ("replica.identity.autoset.values", "public.[x:FULL"),
        ("column.mask.hash.SHA-256.with.salt.s", "a(b"),
    ],
)
def test_an_invalid_regex_is_exit_2_naming_the_property(tmp_path, prop: str, value: str) -> None:
    with pytest.raises(ConfigError) as err:
        from_dict({**PG, prop: value})
    assert err.value.property == prop
    r = _run_cli(tmp_path, {**PG, prop: value})
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and prop in lines[0], r.stderr


# -- every documented property has a status; unimplemented ones and values are refused ----------------------------


@pytest.mark.parametrize("kind", ["postgres", "mysql", "mariadb", "mongodb"])
def test_every_documented_property_has_a_row(kind: str) -> None:
    names = [n.strip() for n in (DOC_LISTS / f"{kind}.txt").read_text().splitlines() if n.strip()]
    assert len(names) > 70
    concrete = {"_length_": "5", "_hashAlgorithm_": "SHA-256", "_salt_": "s"}
    missing = []
    for name in names:
        for k, v in concrete.items():
            name = name.replace(k, v)
        if property_spec(name, kind) is None:
            missing.append(name)
    assert missing == []


REFUSED = [  # property, value: Debezium would apply them; the emulator does not (yet)
    ("converters", "c"),
    # post.processors: implemented for PostgreSQL, refused elsewhere (tests/test_post_processors_settings.py)
    ("snapshot.mode", "custom"),
    ("snapshot.query.mode", "custom"),
    # (snapshot.isolation.mode: implemented on PostgreSQL since session 23, pg cases snapshot_isolation_*; read_committed
    # and read_uncommitted with snapshot.max.threads > 1 refused: test_isolation_reading_outside_one_snapshot_...)
    ("xmin.fetch.interval.ms", "1000"),
    ("schema.refresh.mode", "columns_diff_exclude_unchanged_toast"),
    ("source.struct.version", "v1"),
    ("database.sslfactory", "org.postgresql.ssl.NonValidatingFactory"),
    # (event.processing.failure.handling.mode warn|skip: implemented on PostgreSQL since session 21, pg cases
    # processing_failure_*; with snapshot.max.threads > 1 since session 23, tests/test_pg_snapshot_failure_settings.py)
    ("topic.naming.strategy", "io.debezium.schema.DefaultUnicodeTopicNamingStrategy"),
    # (guardrail.collections.max: implemented on PostgreSQL, MySQL and MariaDB since session 24, cases guardrail_*)
    ("offset.mismatch.strategy", "trust_slot"),
]


@pytest.mark.parametrize("prop,value", REFUSED)
def test_unimplemented_properties_and_values_are_refused(prop: str, value: str) -> None:
    with pytest.raises(ConfigError) as err:
        from_dict({**PG, prop: value})
    assert err.value.property == prop
    assert str(err.value).startswith(prop + ":") and "not supported" in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "prop,value",
    [
        ("database.ssl.mode", "verify_ca"),
        ("table.ignore.builtin", "false"),
    ],
)
def test_unimplemented_binlog_properties_are_refused(prop: str, value: str) -> None:
    with pytest.raises(ConfigError) as err:
        from_dict({**MARIA, prop: value})
    assert err.value.property == prop and "not supported" in str(err.value)


def test_implemented_values_and_defaults_are_accepted() -> None:
    from_dict(
        {
            **PG,
            "time.precision.mode": "connect",
            "publish.via.partition.root": "false",
            "value.converter.decimal.format": "BASE64",
            "transforms": "",
            "tasks.max": "3",
        }
    )
    from_dict({**MARIA, "time.precision.mode": "connect", "database.ssl.mode": "disable"})
    # recorded: mariadb cases time_mode_microseconds / _nanoseconds / _isostring
    for mode in ("microseconds", "nanoseconds", "isostring"):
        from_dict({**MARIA, "time.precision.mode": mode})
    from_dict({**MARIA, "enable.time.adjuster": "false"})  # recorded: mariadb case year_adjust_disabled
    # recorded: pg and mariadb cases schema_comments (no effect on PostgreSQL, field docs on the binlog connectors)
    from_dict({**PG, "include.schema.comments": "true"})
    from_dict({**MARIA, "include.schema.comments": "true"})
    # recorded: mariadb cases store_only_captured_*, processing_failure_*, ssl_required_no_tls_stops
    from_dict({**MARIA, "schema.history.internal.store.only.captured.tables.ddl": "true"})
    from_dict({**MARIA, "event.processing.failure.handling.mode": "skip"})
    # case processing_failure_ignore_as_skip
    from_dict({**MARIA, "event.processing.failure.handling.mode": "ignore"})
    # recorded: mariadb cases inconsistent_schema_skip / _warn (the second also sets the deprecated
    # event.deserialization.failure.handling.mode, the first gtid.source.filter.dml.events=false)
    for mode in ("warn", "skip", "ignore"):
        from_dict({**MARIA, "inconsistent.schema.handling.mode": mode})
        from_dict({**MARIA, "event.deserialization.failure.handling.mode": mode})
    from_dict({**MARIA, "gtid.source.filter.dml.events": "false"})  # tests/test_mariadb_gtid_source_filter.py
    from_dict({**PG, "event.processing.failure.handling.mode": "warn"})  # pg cases processing_failure_*
    # pg case topic_naming_default_strategy (session 23)
    from_dict({**PG, "topic.naming.strategy": "io.debezium.schema.DefaultTopicNamingStrategy"})
    # implemented on the binlog connectors (tests/data/mariadb/cases/names_adjust_*)
    from_dict({**MARIA, "field.name.adjustment.mode": "avro", "schema.name.adjustment.mode": "avro_unicode"})


def test_the_cli_refuses_with_one_line(tmp_path) -> None:
    r = _run_cli(tmp_path, {**PG, "xmin.fetch.interval.ms": "1000"})
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: xmin.fetch.interval.ms: '1000' is not supported")


@pytest.mark.parametrize("mode", ["serializable", "repeatable_read", "read_committed", "read_uncommitted"])
def test_every_snapshot_isolation_mode_is_accepted_with_one_reader(mode: str) -> None:
    # pg cases snapshot_isolation_repeatable_read / _read_committed (recorded, session 23)
    from_dict({**PG, "snapshot.isolation.mode": mode})
    from_dict({**PG, "snapshot.isolation.mode": mode, "snapshot.max.threads": "1"})


@pytest.mark.parametrize("mode", ["read_committed", "read_uncommitted"])
def test_isolation_reading_outside_one_snapshot_is_refused_with_threads(mode: str) -> None:
    with pytest.raises(ConfigError) as err:
        from_dict({**PG, "snapshot.isolation.mode": mode, "snapshot.max.threads": "2"})
    assert err.value.property == "snapshot.isolation.mode" and "snapshot.max.threads > 1" in str(err.value)
    from_dict({**PG, "snapshot.isolation.mode": "repeatable_read", "snapshot.max.threads": "2"})


@pytest.mark.parametrize("value", ["jmx", "log,jmx", "sink,carrier-pigeon"])
def test_an_unavailable_notification_channel_is_refused(value: str) -> None:
    # Debezium 3.6.3 has sink, log and jmx; the emulator writes sink and log only
    with pytest.raises(ConfigError) as err:
        from_dict({**PG, "notification.enabled.channels": value, "notification.sink.topic.name": "n"})
    bad = "jmx" if "jmx" in value else "carrier-pigeon"
    assert err.value.property == "notification.enabled.channels"
    assert str(err.value) == (
        f"notification.enabled.channels: channel '{bad}' is not available in this emulator; available: sink, log"
    )


def test_the_cli_refuses_a_jmx_notification_channel_with_one_line(tmp_path) -> None:
    r = _run_cli(tmp_path, {**PG, "notification.enabled.channels": "log,jmx"})
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "error: notification.enabled.channels: channel 'jmx' is not available in this emulator; "
        "available: sink, log"
    ]


def test_the_notification_channels_the_emulator_writes_are_accepted() -> None:
    from_dict({**PG, "notification.enabled.channels": "log"})
    from_dict({**PG, "notification.enabled.channels": " Sink , log ", "notification.sink.topic.name": "n"})


# -- typos and pass-through ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "typo,meant",
    [
        ("snapshot.mdoe", "snapshot.mode"),
        ("database.hostnme", "database.hostname"),
        ("slot.nmae", "slot.name"),
        ("table.include.lst", "table.include.list"),
        ("topic.prefx", "topic.prefix"),
    ],
)
def test_a_typo_is_exit_2_with_did_you_mean(tmp_path, typo: str, meant: str) -> None:
    with pytest.raises(ConfigError) as err:
        from_dict({**PG, typo: "x"})
    assert err.value.property == typo
    assert f"did you mean {meant}?" in str(err.value)
    if typo == "snapshot.mdoe":
        r = _run_cli(tmp_path, {**PG, typo: "initial"})
        assert r.returncode == 2
        assert r.stderr.strip().splitlines() == [
            "error: snapshot.mdoe: unknown property for PostgresConnector; did you mean snapshot.mode?"
        ]


def test_connect_pass_through_properties_are_accepted() -> None:
    from_dict(
        {
            **PG,
            "producer.override.compression.type": "lz4",
            "errors.deadletterqueue.topic.name": "dlq",
            "key.converter.schemas.enable": "false",
            "config.providers": "env",
            "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
            "offset.storage.topic": "offs",
            "schema.history.internal.producer.acks": "all",
            "database.history.kafka.topic": "legacy",
            "driver.ApplicationName": "x",
            "tasks.max": "1",
            "topic.creation.default.partitions": "1",
            "consumer.override.max.poll.records": "5",
        }
    )


def test_docs_properties_md_is_up_to_date() -> None:
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "properties_doc.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr


def test_custom_sanitize_pattern_masks_the_keys_it_matches() -> None:
    """(session 22) custom.sanitize.pattern: Debezium 3.6 masks the configuration keys it matches (whole key, Java's
    matches()) when it logs its configuration; no record shows it. Accepted (refused before), masked in the emulator's
    own log on top of its secrets; an invalid regular expression is refused at start."""
    props = {**MARIA, "database.password": "pw", "database.port": "3306"}
    shown = repr(from_dict({**props, "custom.sanitize.pattern": r"topic\.pre.*|.*\.user"}))
    assert "'topic.prefix': '********'" in shown and "'database.user': '********'" in shown
    assert "'database.port': '3306'" in shown and "'database.password': '********'" in shown
    assert "'topic.prefix': '********'" not in repr(from_dict({**MARIA, "custom.sanitize.pattern": "prefix"}))
    with pytest.raises(ConfigError, match="custom.sanitize.pattern"):
        from_dict({**MARIA, "custom.sanitize.pattern": "(unclosed"})
