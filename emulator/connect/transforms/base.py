"""What every transform shares: option parsing, the registry, the chain, and Connect data helpers."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from emulator.connect.record import ConnectRecord, default_value
from emulator.connect.schema import STRUCT, Field, Schema, schema_java_class
from emulator.connect.unset import is_unset, unset_fields
from emulator.settings import Settings


class TransformConfigError(Exception):
    """A bad transform / predicate option; `name` is the full property name."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name


class Options:
    """The `transforms.X.*` (or `predicates.P.*`) properties of one alias, typed like Connect's ConfigDef."""

    def __init__(self, prefix: str, props: dict[str, str]) -> None:
        self.prefix = prefix
        self.props = props

    def name(self, key: str) -> str:
        return self.prefix + key

    def fail(self, key: str, message: str) -> TransformConfigError:
        return TransformConfigError(self.prefix + key, message)

    def raw(self, key: str) -> str | None:
        return self.props.get(key)

    def str(self, key: str, default: str | None = None, required: bool = False) -> str | None:
        value = self.props.get(key)
        if value is None:
            if required:
                raise self.fail(key, "a value is required")
            return default
        return value

    def nonempty(self, key: str, default: str | None = None) -> str:
        value = self.str(key, default)
        if value is None or not value.strip():
            raise self.fail(key, "a non-empty value is required")
        return value

    def bool(self, key: str, default: bool) -> bool:
        value = self.props.get(key)
        if value is None:
            return default
        v = value.strip().lower()
        if v not in ("true", "false"):
            raise self.fail(key, f"expected true or false, got {value!r}")
        return v == "true"

    def int(self, key: str, default: int | None = None, required: bool = False) -> int | None:
        value = self.props.get(key)
        if value is None:
            if required:
                raise self.fail(key, "a value is required")
            return default
        try:
            return int(value.strip())
        except ValueError:
            raise self.fail(key, f"expected an integer, got {value!r}") from None

    def list(self, key: str, default: list[str] | None = None) -> list[str]:
        """ConfigDef LIST: comma separated, items trimmed, an empty string is the empty list."""
        value = self.props.get(key)
        if value is None:
            return list(default or [])
        value = value.strip()
        if not value:
            return []
        return [v.strip() for v in value.split(",")]

    def enum(self, key: str, allowed: tuple[str, ...], default: str) -> str:
        value = self.props.get(key)
        if value is None:
            return default
        v = value.strip().lower()
        for a in allowed:
            if a.lower() == v:
                return a
        raise self.fail(key, f"invalid value {value!r}; allowed values: {', '.join(allowed)}")

    def regex(self, key: str, default: str | None = None, required: bool = False) -> re.Pattern | None:
        value = self.str(key, default, required)
        if value is None:
            return None
        try:
            return java_regex(value)
        except re.error as e:
            raise self.fail(key, f"not a valid regular expression: {e}") from None


class Transform:
    """One configured transformation. `apply` returns the new record, or None to drop it.

    `wire_safe`: the transform never reads a field's value (it routes, filters, moves whole structs or
    headers by name), so it works as well on values still in their JSON-ready form (see
    `emulator.connect.dataplane`, wire mode). False unless a class says otherwise."""

    wire_safe = False

    def __init__(self, opts: Options) -> None:
        self.opts = opts

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        raise NotImplementedError


class Predicate:
    def __init__(self, opts: Options) -> None:
        self.opts = opts

    def test(self, record: ConnectRecord) -> bool:
        raise NotImplementedError


REGISTRY: dict[str, Callable[[Options], Transform]] = {}
PREDICATES: dict[str, Callable[[Options], Predicate]] = {}


def register(*names: str) -> Callable:
    def deco(cls):
        for n in names:
            REGISTRY[n] = cls
        return cls

    return deco


def register_predicate(*names: str) -> Callable:
    def deco(cls):
        for n in names:
            PREDICATES[n] = cls
        return cls

    return deco


class Stage:
    """Kafka Connect's `TransformationStage`: the transform runs when there is no predicate, or when the
    predicate's answer differs from `negate`."""

    __slots__ = ("alias", "class_name", "transform", "predicate", "negate")

    def __init__(
        self, alias: str, class_name: str, transform: Transform, predicate: Predicate | None, negate: bool
    ) -> None:
        self.alias = alias
        self.class_name = class_name
        self.transform = transform
        self.predicate = predicate
        self.negate = negate

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        p = self.predicate
        if p is None or self.negate != p.test(record):
            return self.transform.apply(record)
        return record


def build_chain(settings: Settings) -> list[Stage]:
    """The configured chain in `transforms=` order, every option validated: the aliases from the typed
    settings (``transforms``, ``predicates``), each alias's own options from its prefix."""
    predicates: dict[str, Predicate] = {}
    for alias in settings.common.predicates:
        type_key = f"predicates.{alias}.type"
        prefix = f"predicates.{alias}."
        sub = settings.prefixed(prefix)
        cls_name = (sub.get("type") or "").strip()
        if not cls_name:
            raise TransformConfigError(
                type_key, f"a value is required for the predicate '{alias}' listed in predicates"
            )
        factory = PREDICATES.get(cls_name)
        if factory is None:
            raise TransformConfigError(
                type_key,
                f"predicate class '{cls_name}' is not supported by this emulator; supported: "
                + ", ".join(sorted(PREDICATES)),
            )
        predicates[alias] = factory(Options(prefix, sub))
    stages: list[Stage] = []
    for alias in settings.common.transforms:
        prefix = f"transforms.{alias}."
        sub = settings.prefixed(prefix)
        cls_name = (sub.get("type") or "").strip()
        if not cls_name:
            raise TransformConfigError(
                prefix + "type", f"a value is required for the transformation '{alias}' listed in transforms"
            )
        factory = REGISTRY.get(cls_name)
        if factory is None:
            raise TransformConfigError(
                prefix + "type",
                f"transformation class '{cls_name}' is not supported by this emulator "
                "(see docs/transforms.md for the supported ones)",
            )
        opts = Options(prefix, sub)
        pred_alias = (sub.get("predicate") or "").strip()
        negate = opts.bool("negate", False)
        predicate = None
        if pred_alias:
            predicate = predicates.get(pred_alias)
            if predicate is None:
                raise TransformConfigError(
                    prefix + "predicate",
                    f"references undefined predicate '{pred_alias}' (not listed in predicates)",
                )
        elif "negate" in sub:
            raise TransformConfigError(prefix + "negate", "can only be used together with a predicate")
        stages.append(Stage(alias, cls_name, factory(opts), predicate, negate))
    return stages


# ------------------------------------------------------------------------------- Connect data helpers


def get_string(schema: Schema, value: dict, name: str) -> Any:
    """Kafka's `Struct.getString(name)`: the raw value (a null stays null: no schema default, unlike
    `Struct.get`), a name the schema lacks or a field that is not a string throws (ExtractNewRecordState
    route.by.field; connect seed 84 trials 37 and 42)."""
    f = _field(schema, name)
    if f is None:
        raise TransformError(f"{name} is not a valid field name")
    if f.schema.type != "string":
        raise TransformError(f"Field '{name}' is not of type STRING")
    return value.get(name)


def fget(field: Field, value: dict) -> Any:
    v = value.get(field.name)
    if v is None and field.schema.default is not None:
        return default_value(field.schema)
    return v


def _field(schema: Schema, name: str) -> Field | None:
    for f in schema.fields or ():
        if f.name == name:
            return f
    return None


def field_of(schema: Schema, name: str) -> Field | None:
    return _field(schema, name)


def copy_basics(
    schema: Schema, type_: str = STRUCT, fields: list[Field] | None = None, optional: bool = False
) -> Schema:
    """`SchemaUtil.copySchemaBasics(schema, SchemaBuilder.struct())` then fields: name, version, doc and
    parameters are copied; optionality and the default are NOT (a fresh builder is required). A field name
    given twice fails as `SchemaBuilder.field` does (InsertField / ReplaceField renames onto an existing field)."""
    if fields and len({f.name for f in fields}) != len(fields):
        seen: set[str] = set()
        for f in fields:
            if f.name in seen:
                raise TransformError(f"Cannot create field because of field name duplication {f.name}")
            seen.add(f.name)
    return Schema(
        type_,
        optional=optional,
        name=schema.name,
        version=schema.version,
        doc=schema.doc,
        parameters=schema.parameters,
        fields=fields,
    )


def as_optional(schema: Schema) -> Schema:
    """`copySchemaBasics(s).optional().build()` for a primitive: type and basics, optional, no default."""
    return Schema(
        schema.type,
        optional=True,
        name=schema.name,
        version=schema.version,
        doc=schema.doc,
        parameters=schema.parameters,
        fields=schema.fields,
        items=schema.items,
        keys=schema.keys,
        values=schema.values,
    )


def is_envelope(record: ConnectRecord) -> bool:
    s = record.value_schema
    return s is not None and s.name is not None and s.name.endswith(".Envelope")


def require_struct(value: Any, purpose: str, schema: Schema | None = None) -> dict:
    """Kafka's `Requirements.requireStruct`: the value's class is the one its schema makes Connect hold (an
    int32 is a java.lang.Integer: connect campaign seed 107 trial 34), else the one JsonConverter gives; `null`
    for a null (nullSafeClassName)."""
    if not isinstance(value, dict):
        found = (
            schema_java_class(schema) if schema is not None and value is not None else None
        ) or _java_class(value)
        raise TransformError(f"Only Struct objects supported for [{purpose}], found: {found}")
    return value


def put_raw(schema: Schema, value: dict, dest: Callable[[str], Field | None] | None = None) -> None:
    """Kafka's `Struct.put` of the fields a transform read with `getWithoutDefault` (its
    replace.null.with.default=false): a field the connector left unset (connect/unset.py) is null there, and
    `ConnectSchema.validateValue` refuses a null for a required field, so the record fails (recorded: connect
    cases `mariadb_unset_required_raw_*`). `dest` maps a source field's name to the field it is put into, None
    where it is not copied (default: the same field). Only fields that can be unset are asked: nothing to do for
    almost every schema."""
    for name, fs in unset_fields(schema):
        v = value.get(name)
        if v is None or is_unset(v):  # (a wire value keeps its marker: connect/record.py)
            f = Field(name, fs) if dest is None else dest(name)
            if f is not None and not f.schema.optional:
                raise TransformError(
                    f'Invalid value: null used for required field: "{f.name}", schema type: '
                    f"{f.schema.type.upper()}"
                )


def require_map(value: Any, purpose: str) -> dict:
    if not isinstance(value, dict):
        raise TransformError(
            f"Only Map objects supported in absence of schema for [{purpose}], found: {_java_class(value)}"
        )
    return value


def _java_class(value: Any) -> str:
    if value is None:
        return "null"
    return {
        str: "java.lang.String",
        int: "java.lang.Long",
        float: "java.lang.Double",
        bool: "java.lang.Boolean",
        bytes: "[B",
        list: "java.util.ArrayList",
        dict: "java.util.HashMap",
    }.get(type(value), type(value).__name__)


class TransformError(Exception):
    """A transform failed on one record (Connect's DataException): subject to errors.tolerance."""


# ------------------------------------------------------------------------------- Java regular expressions

_NAMED_GROUP = re.compile(r"\(\?<(?![=!])")


def java_regex(expression: str) -> re.Pattern:
    """A `java.util.regex.Pattern` expression compiled by Python's `re` (named groups translated)."""
    return re.compile(_NAMED_GROUP.sub("(?P<", expression))


def java_replacement(template: str) -> Callable[[re.Match], str]:
    """`Matcher.replaceFirst` replacement syntax: `$n`, `${name}`, `\\x` escapes."""
    parts: list[Any] = []
    i, n = 0, len(template)
    lit: list[str] = []
    while i < n:
        c = template[i]
        if c == "\\" and i + 1 < n:
            lit.append(template[i + 1])
            i += 2
        elif c == "$" and i + 1 < n and template[i + 1] == "{":
            end = template.index("}", i)
            if lit:
                parts.append("".join(lit))
                lit = []
            parts.append((template[i + 2 : end],))
            i = end + 1
        elif c == "$" and i + 1 < n and template[i + 1].isdigit():
            j = i + 1
            while j < n and template[j].isdigit():
                j += 1
            if lit:
                parts.append("".join(lit))
                lit = []
            parts.append(int(template[i + 1 : j]))
            i = j
        else:
            lit.append(c)
            i += 1
    if lit:
        parts.append("".join(lit))

    def repl(m: re.Match) -> str:
        out = []
        for p in parts:
            if isinstance(p, str):
                out.append(p)
            else:
                g = m.group(p if isinstance(p, int) else p[0])
                out.append(g or "")
        return "".join(out)

    return repl


def replace_first(pattern: re.Pattern, repl: Callable[[re.Match], str], text: str) -> str | None:
    """`matcher.matches()` then `replaceFirst`: None when the whole text does not match."""
    if pattern.fullmatch(text) is None:
        return None
    return pattern.sub(repl, text, count=1)  # replaceFirst searches again from the start
