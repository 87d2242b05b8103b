"""Kafka Connect converters: the bytes a record's key, value and headers become.

`build(config)` reads `key.converter`, `value.converter`, `header.converter` and their `<part>.converter.X`
options (Connect's defaults: JsonConverter with schemas for key and value, SimpleHeaderConverter for headers,
JsonConverter for Debezium Server's JSON header format) and returns the three converters. A class or an
option this emulator does not reproduce exactly stops the start (exit 2) naming the property.

`Converters.fast_path` tells whether the connectors' own JSON already is these converters' output
(JsonConverter, BASE64 decimals, nulls replaced by defaults, JSON headers), so that nothing needs to run per
record.

Headers: a `header.converter` named in the configuration gives its bytes in every output. None named: the
directory output and stdout get JsonConverter headers (the default of Debezium's embedded engine and of
Debezium Server, which the recordings of tests/data/pg and tests/data/mariadb hold), the Kafka output
SimpleHeaderConverter's (Kafka Connect's default) - with or without transforms.
"""

from __future__ import annotations

import codecs
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from emulator.config import ConfigError
from emulator.connect.converters.errors import ConversionError
from emulator.connect.converters.json_converter import JsonConverter
from emulator.connect.converters.number_converters import CLASSES as NUMBER_CLASSES
from emulator.connect.converters.number_converters import build as number_converter
from emulator.connect.converters.registry import RealRegistry, mock_dump, mock_scope
from emulator.connect.converters.text_converters import (
    ByteArrayConverter,
    SimpleHeaderConverter,
    StringConverter,
)
from emulator.records import ConvertedRecord
from emulator.settings.spec import INT
from emulator.settings.values import parse_int

if TYPE_CHECKING:  # imported when configured (their writers' tables cost a start without them ~8 ms)
    from emulator.connect.converters.avro_converter import AvroConverter
    from emulator.connect.converters.cloudevents import CloudEventsConverter

_AVRO_MODULE = "emulator.connect.converters.avro_converter"

__all__ = ["ConversionError", "Converters", "build", "mock_dump", "SUPPORTED", "HEADER_SUPPORTED"]

JSON = "org.apache.kafka.connect.json.JsonConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter"
SIMPLE_HEADER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
AVRO = "io.confluent.connect.avro.AvroConverter"
CLOUDEVENTS = "io.debezium.converters.CloudEventsConverter"
SUPPORTED = (JSON, STRING, BYTE_ARRAY, AVRO, CLOUDEVENTS, *NUMBER_CLASSES)
# the HeaderConverters among them: Connect refuses a header.converter that is not one (AvroConverter and
# CloudEventsConverter implement Converter only)
HEADER_SUPPORTED = (JSON, STRING, BYTE_ARRAY, SIMPLE_HEADER, *NUMBER_CLASSES)

# options each converter reads (beyond `converter.type`); anything else set for it is refused
_JSON_OPTS = {"schemas.enable", "schemas.cache.size", "decimal.format", "replace.null.with.default"}
_AVRO_OPTS = {
    "schema.registry.url",
    "auto.register.schemas",
    "use.latest.version",
    "key.subject.name.strategy",
    "value.subject.name.strategy",
    "schemas.cache.size",
    "connect.meta.data",
    "enhanced.avro.schema.support",
    "basic.auth.credentials.source",
    "basic.auth.user.info",
    "latest.compatibility.strict",
    "scrub.invalid.names",  # AvroData's name scrubbing (avro_schema.scrub_name)
    # Confluent 7.0.16's serializer reads these only where it derives a schema from a Java object (not the
    # AvroConverter's path) or converts Java logical-type classes AvroData never hands it: no effect here
    "avro.remove.java.properties",
    "avro.use.logical.type.converters",
}
_CE_OPTS = {
    "serializer.type",
    "data.serializer.type",
    "schema.registry.url",
    "extension.attributes.enable",
    "schemas.cache.size",
    "decimal.format",
    "replace.null.with.default",
    "schema.name.adjustment.mode",
    "schema.cloudevents.name",  # the envelope schema's name: not in serializer.type=json output
    "metadata.source",
    "schema.data.name.source.header.enable",
    "opentelemetry.tracing.attributes.enable",
}
_OPTIONS = {
    JSON: _JSON_OPTS,
    STRING: {"encoding", "converter.encoding"},
    BYTE_ARRAY: set(),
    **{
        cls: set() for cls in NUMBER_CLASSES
    },  # NumberConverterConfig / BooleanConverterConfig: converter.type
    SIMPLE_HEADER: {"schemas.enable"},  # read by no one, as on Connect (a JsonConverter option left set)
    AVRO: _AVRO_OPTS,
    CLOUDEVENTS: _CE_OPTS,
}


_SCALARS = (str, int, bool)


@dataclass
class Converters:
    key: Any
    value: Any
    header: Any
    fast_path: bool
    # no header.converter named: JsonConverter headers, which the Kafka output converts to Connect's default
    default_headers: bool = False
    _header_cache: dict = field(default_factory=dict, repr=False)
    _header_lists: dict = field(default_factory=dict, repr=False)
    verbatim: int = field(init=False, default=0)
    # what the key and value converters see of the headers when that differs from the header converter's
    # bytes (`worker_headers`): header bytes -> the bytes a Connect worker hands them
    _header_view: Any = field(init=False, default=None, repr=False)
    _viewed: dict = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        # parts whose converter always writes JSON text (the directory line copies them unchecked)
        self.verbatim = (
            (1 if isinstance(self.key, JsonConverter) else 0)
            | (2 if isinstance(self.value, JsonConverter) else 0)
            | (4 if isinstance(self.header, JsonConverter) else 0)
            | (8 if self.default_headers else 0)
        )

    def convert(
        self,
        topic: str,
        key_schema: Any,
        key: Any,
        value_schema: Any,
        value: Any,
        headers: list[tuple[str, Any, Any]] | None,
    ) -> tuple[bytes | None, bytes | None, list[tuple[str, bytes | None]] | None]:
        """Connect's `WorkerSourceTask.convertTransformedRecord`: headers one by one, then key, value."""
        out_h = self.convert_headers(topic, headers) if headers else None
        # key and value converters see the converted headers, as Connect's (CloudEvents' metadata.source=header)
        seen = out_h if self._header_view is None or out_h is None else self._worker_view(out_h)
        return (
            self.key.from_connect_data(topic, seen, key_schema, key),
            self.value.from_connect_data(topic, seen, value_schema, value),
            out_h,
        )

    def worker_headers(self, simple_header_bytes: Any) -> None:
        """The Kafka output's records, as a Kafka Connect worker makes them: with no `header.converter` named,
        Connect's default SimpleHeaderConverter converts the headers, and the key and value converters are handed
        those bytes (WorkerSourceTask.convertTransformedRecord). The data plane keeps JsonConverter headers there
        (the output converts them: `default_headers`), so a converter that reads headers (CloudEvents
        `metadata.source` with a header) is handed them through `simple_header_bytes`, the output's own
        conversion: every such record then fails as on Connect (JsonConverter cannot read `dbserver1`), where
        the directory output's JSON headers succeed."""
        if self.default_headers and (
            getattr(self.key, "reads_headers", False) or getattr(self.value, "reads_headers", False)
        ):
            self._header_view = simple_header_bytes

    def _worker_view(self, out_h: list[tuple[str, bytes | None]]) -> list[tuple[str, bytes | None]]:
        hit = self._viewed.get(id(out_h))
        if hit is not None and hit[0] is out_h:
            return hit[1]
        view = self._header_view
        seen = [(n, None if raw is None else view(raw)) for n, raw in out_h]
        if len(self._viewed) >= 64:
            self._viewed.clear()
        self._viewed[id(out_h)] = (out_h, seen)  # holds the list: its id is not reused
        return seen

    def convert_headers(
        self, topic: str, headers: list[tuple[str, Any, Any]]
    ) -> list[tuple[str, bytes | None]]:
        """The header converter on each header, in order; a shared list (the context headers of every
        record) converts to one shared list."""
        lists = self._header_lists
        ck = (id(headers), topic)
        hit = lists.get(ck)
        if hit is not None and hit[0] is headers:
            return hit[1]
        out_h = [(n, self._header(topic, n, s, v)) for n, s, v in headers]
        if len(lists) >= 64:
            lists.clear()
        lists[ck] = (headers, out_h)
        return out_h

    def _header(self, topic: str, name: str, schema: Any, value: Any) -> bytes | None:
        """Header bytes, cached for scalar values (the context headers repeat on every record)."""
        if value.__class__ in _SCALARS:
            key = (name, id(schema), value.__class__, value)
            hit = self._header_cache.get(key)
            if hit is not None and hit[0] is schema:
                return hit[1]
            raw = self.header.from_connect_header(topic, name, schema, value)
            if len(self._header_cache) > 4096:
                self._header_cache.clear()
            self._header_cache[key] = (schema, raw)
            return raw
        return self.header.from_connect_header(topic, name, schema, value)

    def wire_twin(self) -> Converters | None:
        """These converters for values in their JSON-ready form, or None unless key and value both are
        JsonConverters with BASE64 decimals or AvroConverters (headers are converted from Connect values as
        ever)."""
        if not (_wire_kind(self.key) and _wire_kind(self.value)):
            return None
        key, value = self.key.wire_twin(), self.value.wire_twin()
        if key is None or value is None:
            return None
        return Converters(
            key,
            value,
            self.header,
            self.fast_path,
            self.default_headers,
            self._header_cache,
            self._header_lists,
        )

    def to_record(self, rec: Any) -> Any:
        """A `ConnectRecord` -> the output `ConvertedRecord` (bytes may be non-JSON: `binary=True`)."""
        k, v, h = self.convert(rec.topic, rec.key_schema, rec.key, rec.value_schema, rec.value, rec.headers)
        return ConvertedRecord(rec.topic, k, v, h, rec.partition, self.verbatim)


def _bool(name: str, value: str | None, default: bool) -> bool:
    if value is None:
        return default
    v = value.strip().lower()
    if v not in ("true", "false"):
        raise ConfigError(f"{name}: {value!r} is not a boolean (true or false)", name)
    return v == "true"


def _options(props: dict[str, str], part: str) -> dict[str, str]:
    prefix = f"{part}.converter."
    return {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)}


def _check_options(part: str, cls: str, opts: dict[str, str]) -> None:
    allowed = _OPTIONS[cls] | {"converter.type"}
    for k in opts:
        if cls == CLOUDEVENTS and k.startswith("avro."):  # options of its Avro data converter
            _check_options(f"{part}.converter.avro.", AVRO, {k[len("avro.") :]: opts[k]})
            continue
        if cls == CLOUDEVENTS and k.startswith("json."):  # options of its JSON data converter
            _check_options(f"{part}.converter.json.", JSON, {k[len("json.") :]: opts[k]})
            continue
        if k not in allowed:
            name = f"{part}{k}" if part.endswith(".") else f"{part}.converter.{k}"
            raise ConfigError(
                f"{name}: option not supported by this emulator for {cls.rsplit('.', 1)[-1]} "
                f"(supported: {', '.join(sorted(_OPTIONS[cls])) or 'none'})",
                name,
            )


def _json(part: str, opts: dict[str, str], header: bool = False, prefix: str | None = None) -> JsonConverter:
    prefix = prefix or f"{part}.converter."  # the options' property names
    if opts.get("schemas.cache.size") is not None:
        # an INT of JsonConverterConfig (no minimum: the cache's size changes no byte): Kafka's ConfigException on
        # a header converter's or a CloudEvents data converter's (`json.`) value too, which the typed settings
        # do not cover (case pg_json_schemas_cache_negative; session 23's hand checks)
        parse_int(f"{prefix}schemas.cache.size", opts["schemas.cache.size"], INT)
    fmt = (opts.get("decimal.format") or "BASE64").strip().upper()
    if fmt not in ("BASE64", "NUMERIC"):
        name = f"{prefix}decimal.format"
        raise ConfigError(f"{name}: {fmt!r} is not BASE64 or NUMERIC", name)
    return JsonConverter(
        schemas_enable=_bool(f"{prefix}schemas.enable", opts.get("schemas.enable"), True),
        decimal_numeric=fmt == "NUMERIC",
        replace_null_with_default=_bool(
            f"{prefix}replace.null.with.default", opts.get("replace.null.with.default"), True
        ),
    )


def _wire_kind(converter: Any) -> bool:
    """A JsonConverter or an AvroConverter (none exists unless its module was imported by `_avro`)."""
    if isinstance(converter, JsonConverter):
        return True
    avro = sys.modules.get(_AVRO_MODULE)
    return avro is not None and isinstance(converter, avro.AvroConverter)


def _avro(part: str, opts: dict[str, str], is_key: bool) -> AvroConverter:
    from emulator.connect.converters.avro_converter import STRATEGIES, TOPIC_NAME, AvroConverter

    prefix = part if part.endswith(".") else f"{part}.converter."  # the options' property names
    url_name = f"{prefix}schema.registry.url"
    url = (opts.get("schema.registry.url") or "").strip()
    if not url:
        raise ConfigError(
            f"{url_name}: AvroConverter needs a schema registry URL (mock://SCOPE for tests)", url_name
        )
    # enhanced.avro.schema.support: Confluent 7.0.16's AvroData reads it on writes only for Connect schemas with
    # the `io.confluent.connect.avro.Enum` parameter or unions with `fixed` branches (bytecode of fromConnectSchema
    # / fromConnectData), which no connector or transform here makes: the same bytes either way (a boolean check)
    _bool(f"{prefix}enhanced.avro.schema.support", opts.get("enhanced.avro.schema.support"), False)
    for flag in (
        "avro.remove.java.properties",
        "avro.use.logical.type.converters",
    ):  # booleans (see _AVRO_OPTS)
        _bool(f"{prefix}{flag}", opts.get(flag), False)
    strategy_key = "key.subject.name.strategy" if is_key else "value.subject.name.strategy"
    strategy = (opts.get(strategy_key) or TOPIC_NAME).strip()
    if strategy not in STRATEGIES:
        name = f"{prefix}{strategy_key}"
        raise ConfigError(f"{name}: {strategy!r} is not supported; supported: {', '.join(STRATEGIES)}", name)
    registry = registry_for(url, opts, prefix)
    return AvroConverter(
        registry,
        is_key,
        strategy,
        auto_register=_bool(f"{prefix}auto.register.schemas", opts.get("auto.register.schemas"), True),
        use_latest_version=_bool(f"{prefix}use.latest.version", opts.get("use.latest.version"), False),
        connect_meta_data=_bool(f"{prefix}connect.meta.data", opts.get("connect.meta.data"), True),
        latest_compatibility_strict=_bool(
            f"{prefix}latest.compatibility.strict", opts.get("latest.compatibility.strict"), True
        ),
        scrub_invalid_names=_bool(f"{prefix}scrub.invalid.names", opts.get("scrub.invalid.names"), False),
    )


def registry_for(url: str, opts: dict[str, str], prefix: str = "") -> Any:
    if url.startswith("mock://"):
        # Confluent's mock client has no REST service: basic.auth.* are never read (Debezium 3.6.3 ran
        # `basic.auth.credentials.source=NOPE` with a user info on mock://, session 24: the same records)
        return mock_scope(url[len("mock://") :])
    # a real registry: Confluent's serializer takes the credentials from where `basic.auth.credentials.source`
    # says, URL (its default: the URL's user info, which the client reads too) or USER_INFO (basic.auth.user.info,
    # nothing else); SASL_INHERIT (the worker's JAAS login) is not emulated
    source = (opts.get("basic.auth.credentials.source") or "URL").strip()
    conf = {}
    if source == "USER_INFO":
        if opts.get("basic.auth.user.info"):
            conf["basic.auth.user.info"] = opts["basic.auth.user.info"]
            url = ",".join(_without_user_info(u) for u in url.split(","))
    elif source != "URL":
        name = f"{prefix}basic.auth.credentials.source"
        raise ConfigError(
            f"{name}: {source!r} is not emulated with a real registry (URL and USER_INFO are)", name
        )
    return RealRegistry(url, conf)


def _without_user_info(url: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url.strip())
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=host))


def _cloudevents(part: str, opts: dict[str, str]) -> CloudEventsConverter:
    from emulator.connect.converters.cloudevents import CloudEventsConverter
    from emulator.connect.converters.cloudevents_meta import parse as metadata_source
    from emulator.naming import schema_name_adjuster

    ser = (opts.get("serializer.type") or "json").strip().lower()
    if ser not in ("json", "avro"):
        name = f"{part}.converter.serializer.type"
        raise ConfigError(f"{name}: {ser!r} is not json or avro", name)
    data_ser = (opts.get("data.serializer.type") or "json").strip().lower()
    if data_ser not in ("json", "avro"):
        name = f"{part}.converter.data.serializer.type"
        raise ConfigError(f"{name}: {data_ser!r} is not json or avro", name)
    if ser == "avro" and data_ser == "json":  # CloudEventsConverter.configure's IllegalStateException
        name = f"{part}.converter.serializer.type"
        raise ConfigError(
            f"{name}: avro needs data.serializer.type=avro (Debezium: Cannot use 'application/json' data content "
            "type within Avro events)",
            name,
        )
    # it adjusts the envelope schema's name (printed by serializer.type=avro only); another value fails
    # Debezium's start (SchemaNameAdjustmentMode.parse gives null)
    mode = (opts.get("schema.name.adjustment.mode") or "avro").strip().lower()
    if mode not in ("none", "avro", "avro_unicode"):
        name = f"{part}.converter.schema.name.adjustment.mode"
        raise ConfigError(f"{name}: {mode!r} is not none, avro or avro_unicode", name)
    # Debezium configures the data's JsonConverter with the `json.`-prefixed options (Configuration.subset):
    # decimal.format and replace.null.with.default given to the CloudEventsConverter itself do not reach it
    # (pg_cloudevents_types), json.decimal.format / json.replace.null.with.default do (session 17)
    json_opts = {k[len("json.") :]: v for k, v in opts.items() if k.startswith("json.")}
    ext = _bool(
        f"{part}.converter.extension.attributes.enable", opts.get("extension.attributes.enable"), True
    )
    tracing = _bool(
        f"{part}.converter.opentelemetry.tracing.attributes.enable",
        opts.get("opentelemetry.tracing.attributes.enable"),
        False,
    )
    from_header = _bool(
        f"{part}.converter.schema.data.name.source.header.enable",
        opts.get("schema.data.name.source.header.enable"),
        False,
    )
    meta = metadata_source(
        f"{part}.converter.metadata.source", opts.get("metadata.source"), tracing, from_header
    )
    if data_ser == "json":
        data = _json(part, json_opts, prefix=f"{part}.converter.json.")
        return CloudEventsConverter(data, ext, meta=meta, tracing=tracing)
    # Debezium gives its AvroConverter the `avro.`-prefixed options (isKey false); a bare
    # schema.registry.url is not read ("Need URL(s) for schema registry instances for CloudEvents")
    avro_opts = {k[len("avro.") :]: v for k, v in opts.items() if k.startswith("avro.")}
    url = (avro_opts.get("schema.registry.url") or "").strip()
    if not url:
        name = f"{part}.converter.avro.schema.registry.url"
        raise ConfigError(f"{name}: CloudEventsConverter needs it for data.serializer.type=avro", name)
    avro = _avro(f"{part}.converter.avro.", avro_opts, False)
    return CloudEventsConverter(
        avro,
        ext,
        registry_url=url.split(",")[0].strip(),
        meta=meta,
        tracing=tracing,
        avro_envelope=ser == "avro",
        ce_name=None
        if opts.get("schema.cloudevents.name") is None
        else opts["schema.cloudevents.name"].strip(),
        adjust=schema_name_adjuster(mode),
    )


def _one(config: Any, part: str) -> tuple[str, Any, bool]:
    """(class, converter, whether the connectors' JSON already is its output)."""
    name = f"{part}.converter"
    props = config.props
    if part == "header" and not (props.get(name) or "").strip():
        # No class named: JsonConverter headers, the embedded engine's and Debezium Server's default (what
        # the directory output and stdout write, with or without transforms); the Kafka output turns them
        # into SimpleHeaderConverter's bytes, Kafka Connect's default (`Converters.default_headers`).
        opts = _options(props, part)
        _check_options(part, JSON, opts)
        conv = _json(part, opts)
        return JSON, conv, not conv.encoding.numeric and conv.encoding.replace_null
    cls = (config.get(name) or "").strip()
    if not cls:
        cls = JSON
    allowed = HEADER_SUPPORTED if part == "header" else SUPPORTED
    if part == "header" and cls in (AVRO, CLOUDEVENTS):
        raise ConfigError(f"{name}: {cls} is not a HeaderConverter (Kafka Connect refuses it)", name)
    if cls not in allowed:
        raise ConfigError(
            f"{name}: converter {cls!r} is not supported by this emulator; supported: {', '.join(allowed)}",
            name,
        )
    opts = _options(props, part)
    _check_options(part, cls, opts)
    if cls == JSON:
        conv = _json(part, opts)
        fast = not conv.encoding.numeric and conv.encoding.replace_null
        return cls, conv, fast
    if cls == STRING:
        # StringConverterConfig reads `converter.encoding` only: a bare `encoding` is accepted and changes nothing, as
        # on Connect (the oracle's JVM: `encoding=UTF-16` wrote UTF-8; session 22)
        enc = (opts.get("converter.encoding") or "UTF-8").strip()
        try:
            codecs.lookup(enc)
        except LookupError:
            bad = f"{part}.converter.converter.encoding"
            raise ConfigError(f"{bad}: unknown charset {enc!r}", bad) from None
        return cls, StringConverter(enc), False
    if cls == BYTE_ARRAY:
        return cls, ByteArrayConverter(), False
    if cls in NUMBER_CLASSES:
        return cls, number_converter(cls), False
    if cls == SIMPLE_HEADER:  # named: its bytes in every output, so the data plane makes them
        return cls, SimpleHeaderConverter(), False
    if cls == AVRO:
        return cls, _avro(part, opts, part == "key"), False
    if config.connector not in ("postgres", "mysql"):
        raise ConfigError(
            f"{name}: CloudEventsConverter is emulated for the PostgreSQL and MySQL connectors only", name
        )
    return cls, _cloudevents(part, opts), False


def build(config: Any) -> Converters:
    _k_cls, key, k_fast = _one(config, "key")
    _v_cls, value, v_fast = _one(config, "value")
    _h_cls, header, h_fast = _one(config, "header")
    default_headers = not (config.props.get("header.converter") or "").strip()
    return Converters(key, value, header, k_fast and v_fast and h_fast, default_headers)
