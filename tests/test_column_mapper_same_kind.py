"""Two column rules of one kind on one column are refused (exit 2 naming the property).

Debezium applies only the first rule a column matches (ColumnMappers.mapperFor). Between rules of different
kinds the order is fixed - truncate, mask, hash (recorded: pg case mapper_non_text_types, mariadb case
column_mapper_first_rule) - but between two of one kind it is the iteration order of its configuration's
HashMap keys: recorded with real Debezium 3.6.3 on the workload of mapper_non_text_types plus
`column.truncate.to.5.chars` and `column.mask.with.7.chars` on one column each, truncate.to.5 won over
truncate.to.3 while mask.with.4 won over mask.with.7. That order depends on every key of the deployment, so
the emulator refuses such a configuration instead of guessing (docs/differential.md)."""

from __future__ import annotations

import pytest
from column_rule_table import PG, three_column_table

from emulator.config import ConfigError, from_dict
from emulator.filters import Filters


@pytest.mark.parametrize(
    "rules",
    [
        {"column.truncate.to.3.chars": "public.t.a", "column.truncate.to.5.chars": "public.t.a"},
        {"column.mask.with.4.chars": "public.t.a", "column.mask.with.7.chars": "public.t.*"},
        {
            "column.mask.hash.SHA-256.with.salt.s1": "public.t.a",
            "column.mask.hash.v2.SHA-256.with.salt.s2": "public.t.a",
        },
    ],
)
def test_two_rules_of_one_kind_on_a_column_are_refused(rules: dict[str, str]) -> None:
    f = Filters(from_dict({**PG, **rules}))
    with pytest.raises(ConfigError) as e:
        f.shape(three_column_table())
    assert e.value.property in rules
    assert "public.t.a" in str(e.value) and "\n" not in str(e.value)


def test_rules_of_different_kinds_or_columns_are_accepted() -> None:
    f = Filters(
        from_dict(
            {
                **PG,
                "column.truncate.to.3.chars": "public.t.a",
                "column.mask.with.4.chars": "public.t.a,public.t.b",  # a: truncated (truncate comes first)
                "column.mask.with.7.chars": "public.t.id",
            }
        )
    )
    shaped, _ = f.shape(three_column_table())
    params = {c.name: c.schema.parameters for c in shaped.columns}
    assert params == {"id": {"masked": "true"}, "a": {"truncateLength": "3"}, "b": {"masked": "true"}}
