"""A key column whose values a column.truncate / column.mask / column.mask.hash rule changes stops the connector
with one line naming the rule; a rule that only marks a key field leaves the key's schema without the mark.

Recorded with real Debezium 3.6.3 (connect case pg_mapped_key_columns, session 15): with
message.key.columns naming a hashed column (customers.email) and a truncated one (products.name) the key
holds `{"email": "sally.thomas@acme.com"}` and `{"id": 2, "name": "car battery"}` with no `masked` /
`truncateLength` parameter, while the value's fields are hashed / cut to 3 characters: Debezium's
TableSchemaBuilder applies the column mappers to the value converters only. The emulator cuts keys from the
mapped row, so it printed the hashed / cut values and the parameters in the key; it stops instead."""

from __future__ import annotations

import pytest
from column_rule_table import PG, three_column_table

from emulator.config import ConfigError, from_dict
from emulator.filters import Filters


@pytest.mark.parametrize(
    ("rule", "key"),
    [
        ("column.mask.hash.SHA-256.with.salt.s1", "public.t:a"),
        ("column.truncate.to.3.chars", "public.t:id,a"),
        ("column.mask.with.4.chars", "public.t:a"),
    ],
)
def test_a_mapped_key_column_stops_with_the_rule_named(rule: str, key: str) -> None:
    f = Filters(from_dict({**PG, "message.key.columns": key, rule: r"public\.t\.a"}))
    with pytest.raises(ConfigError) as e:
        f.shape(three_column_table())
    assert e.value.property == rule
    assert "public.t.a" in str(e.value) and "\n" not in str(e.value)


def test_a_mapped_value_column_outside_the_key_is_kept() -> None:
    f = Filters(
        from_dict({**PG, "message.key.columns": "public.t:b", "column.truncate.to.3.chars": r"public\.t\.a"})
    )
    shaped, _ = f.shape(three_column_table())
    assert shaped.key_columns == ["b"]
    assert [c.schema.parameters for c in shaped.columns if c.name == "a"] == [{"truncateLength": "3"}]


def test_a_rule_that_only_marks_a_key_field_leaves_the_key_schema_plain() -> None:
    # a mask on a non-text key column changes no value: the value's field is marked `masked`, the key's is not
    # (Debezium's key schema is built without the column mappers)
    f = Filters(from_dict({**PG, "column.mask.with.4.chars": r"public\.t\.id"}))
    shaped, _ = f.shape(three_column_table())
    (id_col,) = [c for c in shaped.columns if c.name == "id"]
    assert id_col.schema.parameters == {"masked": "true"}
    assert id_col.key_schema is not None and not id_col.key_schema.parameters
