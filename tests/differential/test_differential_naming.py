"""Name adjusters (emulator/naming.py): expected values are what Debezium 3.6.3 printed in the recorded
cases (tests/data/pg/cases/avro_unicode_*, propagate_*)."""

from __future__ import annotations

import pytest

from emulator.envelope import sanitized_topic
from emulator.naming import field_name_adjuster, schema_name_adjuster


def test_avro_unicode_schema_names_escape_underscore():
    adj = schema_name_adjuster("avro_unicode")
    assert adj("dbserver1.public.s0_toast.Key") == "dbserver1.public.s0_u005ftoast.Key"
    assert adj("dbserver1.public.plain.Value") == "dbserver1.public.plain.Value"


def test_avro_field_names():
    adj = field_name_adjuster("avro")
    assert adj("1st col") == "_1st_col"
    assert adj("with.dot") == "with_dot"
    assert adj("Größe") == "Gr__e"
    assert adj("plain_name") == "plain_name"


def test_avro_unicode_field_names():
    adj = field_name_adjuster("avro_unicode")
    assert adj("a-b") == "a_u002db"
    assert adj("_x") == "_u005fx"


def test_none_and_bad_modes():
    assert schema_name_adjuster("none") is None and field_name_adjuster(None) is None
    with pytest.raises(ValueError):
        schema_name_adjuster("avro2")


def test_topic_sanitizing():
    assert sanitized_topic("dbserver1.public.s1_names Mixed Case") == "dbserver1.public.s1_names_Mixed_Case"
    assert sanitized_topic("dbserver1.ünï.t😀") == "dbserver1._n_.t__"
    assert sanitized_topic("dbserver1.public.ok-name_1") == "dbserver1.public.ok-name_1"
