"""Configuration: the three input formats, Java properties syntax, validation errors and defaults."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from emulator.config import (
    CONNECTOR_CLASSES,
    PROPERTIES,
    Config,
    ConfigError,
    from_dict,
    load_config,
    load_config_text,
    parse_properties,
    property_spec,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

PG_CLASS = "io.debezium.connector.postgresql.PostgresConnector"
MYSQL_CLASS = "io.debezium.connector.mysql.MySqlConnector"
MARIADB_CLASS = "io.debezium.connector.mariadb.MariaDbConnector"
MONGO_CLASS = "io.debezium.connector.mongodb.MongoDbConnector"

PG = {
    "connector.class": PG_CLASS,
    "topic.prefix": "dbserver1",
    "database.hostname": "127.0.0.1",
    "database.user": "postgres",
    "database.dbname": "postgres",
    "plugin.name": "pgoutput",
}
MYSQL = {
    "connector.class": MYSQL_CLASS,
    "topic.prefix": "dbserver1",
    "database.hostname": "127.0.0.1",
    "database.user": "root",
    "database.server.id": "184054",
}
MONGO = {
    "connector.class": MONGO_CLASS,
    "topic.prefix": "fulfillment",
    "mongodb.connection.string": "mongodb://127.0.0.1:27017/?replicaSet=rs0",
}

EXPECTED_PG_PROPS = {
    "name": "inventory-connector",
    "connector.class": PG_CLASS,
    "database.hostname": "127.0.0.1",
    "database.port": "5432",
    "database.user": "postgres",
    "database.password": "sécret",
    "database.dbname": "postgres",
    "topic.prefix": "dbserver1",
    "plugin.name": "pgoutput",
    "table.include.list": "inventory.customers,inventory.orders",
    "offset.storage.file.filename": "/tmp/dbz-offsets.dat",
}


def with_(base: dict[str, str], **changes: str | None) -> dict[str, str]:
    out = dict(base)
    for key, value in changes.items():
        key = key.replace("__", ".")
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def expect_error(props: dict[str, str], prop: str, *fragments: str, **kw: object) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        from_dict(props, **kw)
    err = info.value
    message = str(err)
    assert "\n" not in message and "\r" not in message, message
    assert prop in message, message
    for fragment in fragments:
        assert fragment in message, message
    return err


# ------------------------------------------------------------------------------------------ formats


def test_three_formats_give_the_same_props(tmp_path: Path) -> None:
    props_file = tmp_path / "connector.properties"
    props_file.write_text(
        "# a Kafka Connect standalone connector file\n"
        "name=inventory-connector\n"
        f"connector.class={PG_CLASS}\n"
        "database.hostname = 127.0.0.1\n"
        "database.port: 5432\n"
        "database.user postgres\n"
        "database.password=sécret\n"
        "database.dbname=postgres\n"
        "topic.prefix=dbserver1\n"
        "plugin.name=pgoutput\n"
        "table.include.list=inventory.customers,\\\n"
        "    inventory.orders\n"
        "offset.storage.file.filename=/tmp/dbz-offsets.dat\n",
        encoding="utf-8",
    )
    config_props = {k: v for k, v in EXPECTED_PG_PROPS.items() if k != "name"}
    config_props["database.port"] = 5432  # Connect's REST API coerces JSON numbers to strings
    json_file = tmp_path / "connector.json"
    json_file.write_text(
        json.dumps({"name": "inventory-connector", "config": config_props}, ensure_ascii=False),
        encoding="utf-8",
    )
    server_file = tmp_path / "application.properties"
    server_file.write_text(
        "debezium.sink.type=kafka\n"
        "debezium.sink.kafka.producer.bootstrap.servers=127.0.0.1:9092\n"
        "debezium.format.value=json\n"
        "quarkus.log.level=INFO\n"
        + "".join(f"debezium.source.{k}={v}\n" for k, v in EXPECTED_PG_PROPS.items()),
        encoding="utf-8",
    )

    from_props = load_config(props_file)
    from_json = load_config(json_file)
    from_server = load_config(server_file)

    assert from_props.props == EXPECTED_PG_PROPS
    assert from_json.props == EXPECTED_PG_PROPS
    assert {k: v for k, v in from_server.props.items() if k != "value.converter"} == EXPECTED_PG_PROPS
    assert from_server.props["value.converter"] == "org.apache.kafka.connect.json.JsonConverter"

    assert from_props.source_format == "properties"
    assert from_json.source_format == "connect-json"
    assert from_server.source_format == "debezium-server"
    assert from_props.sink_type is None and from_props.sink_props == {}
    assert from_server.sink_type == "kafka"
    assert from_server.sink_props == {"producer.bootstrap.servers": "127.0.0.1:9092"}


def test_examples_load_to_identical_connector_props() -> None:
    configs = [
        load_config(EXAMPLES / "postgres.properties"),
        load_config(EXAMPLES / "postgres-connector.json"),
        load_config(EXAMPLES / "application.properties"),
    ]
    assert [c.source_format for c in configs] == ["properties", "connect-json", "debezium-server"]
    assert configs[0].props == configs[1].props == configs[2].props
    config = configs[0]
    assert config.connector == "postgres"
    assert config.get("database.hostname") == "127.0.0.1"
    assert config.int("database.port") == 5432
    assert config.get("database.user") == "postgres"
    assert config.get("database.dbname") == "postgres"
    assert config.get("topic.prefix") == "dbserver1"
    assert config.enum("plugin.name") == "pgoutput"
    assert config.get("offset.storage.file.filename") == "/tmp/dbz-offsets.dat"


def test_bare_connect_json_object(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(dict(PG, **{"tombstones.on.delete": False, "heartbeat.interval.ms": 2000})))
    config = load_config(path)
    assert config.source_format == "connect-json"
    assert "name" not in config.props
    assert config.props["tombstones.on.delete"] == "false"
    assert config.props["heartbeat.interval.ms"] == "2000"
    assert config.bool("tombstones.on.delete") is False


def test_connect_json_name_in_config_is_kept_when_equal() -> None:
    text = json.dumps({"name": "a", "config": dict(PG, name="a")})
    assert load_config_text(text).props["name"] == "a"


def test_connect_json_name_mismatch_is_an_error() -> None:
    text = json.dumps({"name": "a", "config": dict(PG, name="b")})
    with pytest.raises(ConfigError, match=r"^name: .*'b'.*'a'"):
        load_config_text(text)


def test_connect_json_rejects_structured_values() -> None:
    text = json.dumps({"name": "a", "config": dict(PG, **{"table.include.list": ["a", "b"]})})
    with pytest.raises(ConfigError, match=r"^table\.include\.list: "):
        load_config_text(text)


def test_invalid_json_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"name": "x",\n "config": {\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "\n" not in str(info.value)
    assert "broken.json" in str(info.value) and "line" in str(info.value)


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config("/nonexistent/dir/connector.properties")


def test_debezium_server_translation() -> None:
    text = "\n".join(
        [f"debezium.source.{k}={v}" for k, v in PG.items()]
        + [
            "debezium.sink.type=kafka",
            "debezium.sink.kafka.producer.bootstrap.servers=localhost:9092",
            "debezium.sink.kafka.producer.key.serializer=org.apache.kafka.common.serialization.StringSerializer",
            "debezium.sink.redis.address=ignored:6379",
            "debezium.format.key=json",
            "debezium.format.value=JSON",
            "debezium.format.key.schemas.enable=false",
            "debezium.format.value.schemas.enable=false",
            "debezium.source.offset.storage.file.filename=data/offsets.dat",
            "debezium.source.database.password=${DBZ_TEST_PASSWORD}",
            "debezium.source.slot.name=${DBZ_TEST_SLOT:debezium_emul}",
            "%dev.debezium.source.topic.prefix=devprefix",
            "quarkus.log.console.json=false",
        ]
    )
    config = load_config_text(text, environ={"DBZ_TEST_PASSWORD": "pw"})
    assert config.source_format == "debezium-server"
    assert config.sink_type == "kafka"
    assert config.sink_props == {
        "producer.bootstrap.servers": "localhost:9092",
        "producer.key.serializer": "org.apache.kafka.common.serialization.StringSerializer",
    }
    assert config.props["key.converter"] == "org.apache.kafka.connect.json.JsonConverter"
    assert config.props["value.converter"] == "org.apache.kafka.connect.json.JsonConverter"
    assert config.bool("key.converter.schemas.enable") is False
    assert config.bool("value.converter.schemas.enable") is False
    assert config.props["offset.storage.file.filename"] == "data/offsets.dat"
    assert config.props["database.password"] == "pw"
    assert config.props["slot.name"] == "debezium_emul"
    assert config.props["topic.prefix"] == "dbserver1"
    assert not any(k.startswith(("debezium.", "quarkus.", "%")) for k in config.props)
    # Debezium Server's header format defaults to JSON; Kafka Connect's header converter does not
    assert config.get("header.converter") == "org.apache.kafka.connect.json.JsonConverter"
    assert from_dict(PG).get("header.converter") == "org.apache.kafka.connect.storage.SimpleHeaderConverter"


def test_debezium_server_unresolved_env_reference() -> None:
    text = "\n".join(f"debezium.source.{k}={v}" for k, v in PG.items())
    text += "\ndebezium.source.database.password=${DBZ_TEST_NOT_SET_ANYWHERE}\n"
    with pytest.raises(
        ConfigError, match=r"^debezium\.source\.database\.password: .*DBZ_TEST_NOT_SET_ANYWHERE"
    ):
        load_config_text(text, environ={})


def test_debezium_server_unsupported_format() -> None:
    text = "\n".join(f"debezium.source.{k}={v}" for k, v in PG.items()) + "\ndebezium.format.value=avro\n"
    with pytest.raises(ConfigError) as info:
        load_config_text(text)
    assert str(info.value).startswith("debezium.format.value: ")
    assert "avro" in str(info.value) and "json" in str(info.value)


# ------------------------------------------------------------------------------------------ Java properties


def test_properties_separators_and_comments() -> None:
    text = (
        "# comment\n"
        "! also a comment\n"
        "   # indented comment\n"
        "\n"
        "a=1\n"
        "b:2\n"
        "c 3\n"
        "d\t4\n"
        "e = 5\n"
        "f  :  6\n"
        "g\n"
        "h=\n"
        "i = = x\n"
        "j==\n"
        "   k=indented key\n"
        "l=trailing space   \n"
        "m=a#b!c\n"
        "n = x : y = z\n"
    )
    assert parse_properties(text) == {
        "a": "1",
        "b": "2",
        "c": "3",
        "d": "4",
        "e": "5",
        "f": "6",
        "g": "",
        "h": "",
        "i": "= x",
        "j": "=",
        "k": "indented key",
        "l": "trailing space   ",
        "m": "a#b!c",
        "n": "x : y = z",
    }


def test_properties_escapes() -> None:
    text = (
        "tab=a\\tb\n"
        "newline=a\\nb\n"
        "cr=a\\rb\n"
        "ff=a\\fb\n"
        "unicode=caf\\u00e9 \\u20AC\n"
        "surrogates=\\uD83D\\uDE00\n"
        "other=\\q\\z\\\\\n"
        "key\\=with\\:seps\\ and\\ spaces=v\n"
        "\\#notcomment=1\n"
        "\\!bang=2\n"
        "leading=\\  spaces kept\n"
        "backslash.end=a\\\\\n"
        "k\\u0065y=unicode key\n"
    )
    assert parse_properties(text) == {
        "tab": "a\tb",
        "newline": "a\nb",
        "cr": "a\rb",
        "ff": "a\fb",
        "unicode": "café €",
        "surrogates": "\U0001f600",
        "other": "qz\\",
        "key=with:seps and spaces": "v",
        "#notcomment": "1",
        "!bang": "2",
        "leading": "  spaces kept",
        "backslash.end": "a\\",
        "key": "unicode key",
    }


def test_properties_line_continuations() -> None:
    text = (
        "list=a,\\\n"
        "     b,\\\n"
        "\t\tc\n"
        "# comment ending with a backslash does not continue \\\n"
        "after=comment\n"
        "even=ends with two backslashes\\\\\n"
        "next=line\n"
        "stops=here\\\n"
        "\n"
        "x=y\n"
        "crlf=one\\\r\n"
        "  two\r\n"
        "cr=three\r"
        "eof=last\\"
    )
    assert parse_properties(text) == {
        "list": "a,b,c",
        "after": "comment",
        "even": "ends with two backslashes\\",
        "next": "line",
        "stops": "here",
        "x": "y",
        "crlf": "onetwo",
        "cr": "three",
        "eof": "last",
    }


def test_properties_continuation_line_is_not_a_comment() -> None:
    assert parse_properties("a=1\\\n#2\n") == {"a": "1#2"}


def test_properties_last_duplicate_wins_and_bom() -> None:
    assert parse_properties("\ufeffa=1\na=2\n") == {"a": "2"}


def test_properties_malformed_unicode_escape() -> None:
    with pytest.raises(ConfigError) as info:
        parse_properties("ok=1\nbad=\\u12G4\n")
    assert "\n" not in str(info.value)
    assert "bad" in str(info.value) and "line 2" in str(info.value)


def test_properties_file_encodings(tmp_path: Path) -> None:
    base = "".join(f"{k}={v}\n" for k, v in PG.items())
    utf8 = tmp_path / "utf8.properties"
    utf8.write_bytes((base + "database.password=pässwörd€\n").encode("utf-8"))
    assert load_config(utf8).props["database.password"] == "pässwörd€"
    latin1 = tmp_path / "latin1.properties"
    latin1.write_bytes((base + "database.password=pässwörd\n").encode("iso-8859-1"))
    assert load_config(latin1).props["database.password"] == "pässwörd"
    bom = tmp_path / "bom.properties"
    bom.write_bytes(b"\xef\xbb\xbf" + (base + "database.password=\\u00e9\n").encode("utf-8"))
    config = load_config(bom)
    assert config.props["database.password"] == "é"
    assert config.props["connector.class"] == PG_CLASS


# ------------------------------------------------------------------------------------------ defaults


def test_defaults_from_the_table() -> None:
    config = from_dict(PG)
    assert config.get("database.port") == "5432"
    assert config.int("database.port") == 5432
    assert config.get("slot.name") == "debezium"
    assert config.get("publication.name") == "dbz_publication"
    assert config.enum("publication.autocreate.mode") == "all_tables"
    assert config.enum("snapshot.mode") == "initial"
    assert config.enum("time.precision.mode") == "adaptive"
    assert config.enum("decimal.handling.mode") == "precise"
    assert config.enum("hstore.handling.mode") == "json"
    assert config.enum("interval.handling.mode") == "numeric"
    assert config.enum("binary.handling.mode") == "bytes"
    assert config.enum("snapshot.locking.mode") == "none"
    assert config.int("snapshot.fetch.size") == 10240
    assert config.int("max.batch.size") == 2048
    assert config.int("max.queue.size") == 8192
    assert config.int("poll.interval.ms") == 500
    assert config.int("heartbeat.interval.ms") == 0
    assert config.get("topic.heartbeat.prefix") == "__debezium-heartbeat"
    assert config.get("topic.transaction") == "transaction"
    assert config.get("topic.delimiter") == "."
    assert config.get("topic.naming.strategy") == "io.debezium.schema.SchemaTopicNamingStrategy"
    assert config.bool("provide.transaction.metadata") is False
    assert config.bool("tombstones.on.delete") is True
    assert config.list("skipped.operations") == ["t"]
    assert config.list("signal.enabled.channels") == ["source"]
    assert config.get("signal.kafka.topic") == "dbserver1-signal"
    assert config.int("incremental.snapshot.chunk.size") == 1024
    assert config.enum("incremental.snapshot.watermarking.strategy") == "insert_insert"
    assert config.int("errors.max.retries") == -1
    assert config.int("retriable.restart.connector.wait.ms") == 10000
    assert config.int("offset.flush.interval.ms") == 60000
    assert config.get("key.converter") == "org.apache.kafka.connect.json.JsonConverter"
    assert config.get("value.converter") == "org.apache.kafka.connect.json.JsonConverter"
    assert config.bool("key.converter.schemas.enable") is True
    assert config.bool("value.converter.schemas.enable") is True
    assert config.bool("header.converter.schemas.enable") is True
    assert config.get("unavailable.value.placeholder") == "__debezium_unavailable_value"
    assert config.enum("lsn.flush.mode") == "connector"
    assert from_dict(with_(PG, flush__lsn__source="false")).enum("lsn.flush.mode") == "manual"
    assert config.get("database.password") is None
    assert config.get("no.such.property") is None
    assert config.list("table.include.list") == []
    assert config.regex_list("table.include.list") == []


def test_defaults_differ_per_connector() -> None:
    mysql = from_dict(MYSQL)
    assert mysql.connector == "mysql"
    assert mysql.int("database.port") == 3306
    assert mysql.enum("time.precision.mode") == "adaptive_time_microseconds"
    assert mysql.enum("snapshot.locking.mode") == "minimal"
    assert mysql.get("snapshot.fetch.size") is None
    assert mysql.bool("include.schema.changes") is True
    assert mysql.get("topic.naming.strategy") == "io.debezium.schema.DefaultTopicNamingStrategy"
    mongo = from_dict(MONGO)
    assert mongo.connector == "mongodb"
    assert mongo.int("snapshot.fetch.size") == 0
    assert mongo.enum("capture.mode") == "change_streams_update_full"
    assert mongo.enum("capture.scope") == "deployment"
    assert mongo.get("database.port") is None  # not a MongoDB property
    mariadb = from_dict(with_(MYSQL, connector__class=MARIADB_CLASS))
    assert mariadb.connector == "mariadb"
    assert mariadb.int("database.port") == 3306


def test_typed_accessors() -> None:
    config = from_dict(
        with_(
            PG,
            table__include__list=" inventory\\.customers , public\\.t\\d+ ,, Public.X\\,Y ",
            heartbeat__interval__ms=" 2000 ",
            tombstones__on__delete="FALSE",
            snapshot__mode="Initial_Only",
            skipped__operations="c, d",
        )
    )
    assert config.int("heartbeat.interval.ms") == 2000
    assert config.bool("tombstones.on.delete") is False
    assert config.enum("snapshot.mode") == "initial_only"
    assert config.list("skipped.operations") == ["c", "d"]
    assert config.list("table.include.list") == ["inventory\\.customers", "public\\.t\\d+", "Public.X\\", "Y"]
    patterns = config.regex_list("table.include.list")
    assert [p.pattern.endswith(r"\Z") for p in patterns] == [True, True, True]
    customers, numbered, comma = patterns
    assert customers.match("inventory.customers") and customers.search("INVENTORY.Customers")
    assert not customers.match("inventory.customers2")
    assert not customers.search("xinventory.customers")
    assert numbered.fullmatch("public.t42") and not numbered.match("public.t")
    assert comma.match("public.x,y")
    assert isinstance(config.str("topic.prefix"), str)


def test_regex_list_keeps_leading_inline_flags() -> None:
    config = from_dict(with_(PG, schema__include__list="(?s)inv.*"))
    (pattern,) = config.regex_list("schema.include.list")
    assert pattern.match("inv\nentory")


def test_mongo_literal_filters() -> None:
    config = from_dict(with_(MONGO, filters__match__mode="literal", collection__include__list="db.a+b, db.c"))
    literal, plain = config.regex_list("collection.include.list")
    assert literal.match("db.a+b") and not literal.match("db.aab")
    assert plain.match("db.c") and not plain.match("db.cc")


def test_connector_class_aliases_are_normalized() -> None:
    for alias in ("PostgresConnector", "Postgres"):
        config = from_dict(with_(PG, connector__class=alias))
        assert config.props["connector.class"] == PG_CLASS
        assert config.connector == "postgres"


def test_pass_through_properties_are_kept_and_unknown_ones_refused() -> None:
    config = from_dict(with_(PG, **{"driver__ApplicationName": "dbz", "producer__override__linger__ms": "7"}))
    assert config.get("driver.ApplicationName") == "dbz"
    assert config.props["producer.override.linger.ms"] == "7"
    # another connector's property: Debezium ignores it, so does the emulator
    assert from_dict(with_(PG, capture__mode="whatever")).props["capture.mode"] == "whatever"
    # a property nobody knows is refused (it was probably meant to be something else)
    expect_error(with_(PG, my__custom__thing="42"), "my.custom.thing", "unknown property")


def test_from_dict_accepts_python_values() -> None:
    config = from_dict(
        with_(PG)
        | {
            "database.port": 5433,
            "tombstones.on.delete": False,
            "table.include.list": ["a.b", "c.d"],
            "x": None,
        }
    )
    assert config.props["database.port"] == "5433"
    assert config.props["tombstones.on.delete"] == "false"
    assert config.props["table.include.list"] == "a.b,c.d"
    assert "x" not in config.props


def test_config_built_directly_uses_defaults() -> None:
    config = Config(
        props={"connector.class": MYSQL_CLASS}, sink_type=None, sink_props={}, source_format="properties"
    )
    assert config.int("database.port") == 3306


def test_accessor_errors_are_config_errors() -> None:
    config = Config(
        props=with_(PG, max__batch__size="many"), sink_type=None, sink_props={}, source_format="properties"
    )
    with pytest.raises(ConfigError, match=r"^max\.batch\.size: "):
        config.int("max.batch.size")
    with pytest.raises(ConfigError, match=r"^database\.password: "):
        config.int("database.password")


# ------------------------------------------------------------------------------------------ errors

ERROR_CASES = [
    # (id, props, property named in the message, extra fragments)
    (
        "unknown-class",
        with_(PG, connector__class="io.debezium.connector.oracle.OracleConnector"),
        "connector.class",
        (PG_CLASS, MYSQL_CLASS, MARIADB_CLASS, MONGO_CLASS),
    ),
    ("missing-class", with_(PG, connector__class=None), "connector.class", (PG_CLASS,)),
    ("pg-missing-topic-prefix", with_(PG, topic__prefix=None), "topic.prefix", ("required",)),
    ("pg-blank-hostname", with_(PG, database__hostname="  "), "database.hostname", ("required",)),
    ("pg-missing-user", with_(PG, database__user=None), "database.user", ("required",)),
    ("pg-missing-dbname", with_(PG, database__dbname=None), "database.dbname", ("required",)),
    ("mysql-missing-server-id", with_(MYSQL, database__server__id=None), "database.server.id", ("required",)),
    ("mysql-missing-hostname", with_(MYSQL, database__hostname=None), "database.hostname", ("required",)),
    (
        "mongo-missing-connection-string",
        with_(MONGO, mongodb__connection__string=None),
        "mongodb.connection.string",
        ("required",),
    ),
    ("bad-int", with_(PG, max__batch__size="lots"), "max.batch.size", ("'lots'", "integer")),
    ("int-out-of-range", with_(PG, database__port="99999999999"), "database.port", ("range",)),
    ("int-too-small", with_(PG, heartbeat__interval__ms="-5"), "heartbeat.interval.ms", ("minimum",)),
    ("bad-long", with_(MYSQL, database__server__id="12ab"), "database.server.id", ("integer",)),
    ("bad-bool", with_(PG, tombstones__on__delete="yes"), "tombstones.on.delete", ("'yes'", "true, false")),
    (
        "bad-enum",
        with_(PG, decimal__handling__mode="exact"),
        "decimal.handling.mode",
        ("precise, double, string",),
    ),
    (
        "bad-snapshot-mode-pg",
        with_(PG, snapshot__mode="recovery"),
        "snapshot.mode",
        ("PostgresConnector", "always, initial, initial_only, no_data, when_needed"),
    ),
    ("removed-snapshot-mode", with_(PG, snapshot__mode="never"), "snapshot.mode", ("no_data",)),
    (
        "bad-snapshot-mode-mongo",
        with_(MONGO, snapshot__mode="schema_only"),
        "snapshot.mode",
        ("MongoDbConnector", "no_data"),
    ),
    (
        "bad-regex",
        with_(PG, table__include__list="inventory.(customers"),
        "table.include.list",
        ("regular expression", "inventory.(customers"),
    ),
    ("bad-regex-escape", with_(PG, column__exclude__list="a.b.c\\"), "column.exclude.list", ("escape",)),
    (
        "schema-lists",
        with_(PG, schema__include__list="a", schema__exclude__list="b"),
        "schema.exclude.list",
        ("schema.include.list",),
    ),
    (
        "table-lists",
        with_(PG, table__include__list="a.b", table__exclude__list="a.c"),
        "table.exclude.list",
        ("table.include.list",),
    ),
    (
        "column-lists",
        with_(PG, column__include__list="a.b.c", column__exclude__list="a.b.d"),
        "column.exclude.list",
        ("column.include.list",),
    ),
    (
        "database-lists",
        with_(MYSQL, database__include__list="a", database__exclude__list="b"),
        "database.exclude.list",
        ("database.include.list",),
    ),
    (
        "collection-lists",
        with_(MONGO, collection__include__list="a.b", collection__exclude__list="a.c"),
        "collection.exclude.list",
        ("collection.include.list",),
    ),
    (
        "message-prefix-lists",
        with_(PG, message__prefix__include__list="a", message__prefix__exclude__list="b"),
        "message.prefix.exclude.list",
        ("message.prefix.include.list",),
    ),
    ("topic-prefix-charset", with_(PG, topic__prefix="db server/1"), "topic.prefix", ("alphanumerics",)),
    (
        "queue-not-larger-than-batch",
        with_(PG, max__queue__size="1000", max__batch__size="1000"),
        "max.queue.size",
        ("max.batch.size",),
    ),
    ("plugin-decoderbufs-default", with_(PG, plugin__name=None), "plugin.name", ("decoderbufs", "pgoutput")),
    ("plugin-decoderbufs", with_(PG, plugin__name="decoderbufs"), "plugin.name", ("decoderbufs", "pgoutput")),
    ("plugin-wal2json", with_(PG, plugin__name="wal2json"), "plugin.name", ("wal2json", "pgoutput")),
    ("skipped-operations", with_(PG, skipped__operations="c,x"), "skipped.operations", ("'x'", "none")),
    (
        "skipped-operations-none-mixed",
        with_(PG, skipped__operations="none,c"),
        "skipped.operations",
        ("none",),
    ),
    (
        "key-converter",
        with_(PG, key__converter="io.confluent.connect.protobuf.ProtobufConverter"),
        "key.converter",
        ("ProtobufConverter", "JsonConverter"),
    ),
    (
        "value-converter",
        with_(PG, value__converter="io.apicurio.registry.utils.converter.AvroConverter"),
        "value.converter",
        ("apicurio", "StringConverter"),
    ),
    (
        "header-converter",
        with_(PG, header__converter="io.debezium.converters.CloudEventsConverter"),
        "header.converter",
        ("SimpleHeaderConverter",),
    ),
    (
        "converter-schemas-enable",
        with_(PG, value__converter__schemas__enable="no"),
        "value.converter.schemas.enable",
        ("true, false",),
    ),
    ("slot-name", with_(PG, slot__name="Debezium-Slot"), "slot.name", ("lower-case",)),
    (  # custom snapshotters are Java classes: refused (was: asked for snapshot.mode.custom.name)
        "custom-snapshot-refused",
        with_(PG, snapshot__mode="custom", snapshot__mode__custom__name="x"),
        "snapshot.mode",
        ("not supported",),
    ),
    ("mysql-adaptive", with_(MYSQL, time__precision__mode="adaptive"), "time.precision.mode", ("no longer",)),
    ("metric-tags", with_(PG, custom__metric__tags="k1=v1,oops"), "custom.metric.tags", ("'oops'",)),
    # custom converters and SMTs are not emulated here: refused at start (were: accepted, type checked)
    (
        "converters-refused",
        with_(PG, converters="boolean", boolean__type="x.Y"),
        "converters",
        ("not supported",),
    ),
    (
        "transform-type-missing",
        with_(PG, transforms="unwrap"),
        "transforms.unwrap.type",
        ("a value is required",),
    ),
    ("mongo-scope-target", with_(MONGO, capture__scope="database"), "capture.target", ("capture.scope",)),
    ("class-name", with_(PG, topic__naming__strategy="not a class"), "topic.naming.strategy", ("class",)),
]


@pytest.mark.parametrize(
    ("props", "prop", "fragments"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_errors_name_the_property_on_one_line(
    props: dict[str, str], prop: str, fragments: tuple[str, ...]
) -> None:
    err = expect_error(props, prop, *fragments)
    assert err.property == prop
    assert str(err).startswith(prop + ":")


def test_several_problems_are_all_reported() -> None:
    err = expect_error(with_(PG, max__batch__size="x", tombstones__on__delete="maybe"), "max.batch.size")
    assert "tombstones.on.delete" in str(err)
    assert {p for p, _ in err.problems} == {"max.batch.size", "tombstones.on.delete"}


def test_newlines_in_values_do_not_break_the_one_line_rule() -> None:
    expect_error(with_(PG, snapshot__mode="initial\nalways"), "snapshot.mode")


def test_properties_file_error_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in PG.items()) + "snapshot.mode=sometimes\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert re.fullmatch(r"snapshot\.mode: [^\n]*allowed values: [^\n]*", str(info.value))


# ------------------------------------------------------------------------------------------ the table


def test_property_table_is_consistent() -> None:
    for spec in PROPERTIES:
        if spec.allowed is not None and isinstance(spec.default, str):
            assert spec.default.lower() in spec.allowed, spec.name
        assert spec.applies, spec.name
    for connector in set(CONNECTOR_CLASSES.values()):
        seen: dict[str, object] = {}
        for spec in PROPERTIES:
            if connector in spec.applies and spec.pattern is None:
                assert spec.name not in seen, f"{spec.name} listed twice for {connector}"
                seen[spec.name] = spec
    assert property_spec("column.mask.with.12.chars", "postgres") is not None
    assert property_spec("column.mask.hash.SHA-256.with.salt.CzQMA0cB5K", "mysql") is not None
    assert property_spec("capture.mode", "postgres") is None
