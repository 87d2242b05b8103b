"""The port of Debezium's TableIdParser (emulator.connectors.postgres.quoted_names): which names Debezium's
PostgreSQL stream and incremental snapshot cannot read back. Expected values worked by hand from TableIdParser's
states (io.debezium.relational.TableIdParser, 3.6) and, where marked, recorded with Debezium 3.6.3."""

from __future__ import annotations

import pytest

from emulator.connectors.postgres.quoted_names import (
    double_quoted,
    parse_parts,
    parses,
    read_back,
    stream_stop_line,
)


@pytest.mark.parametrize(
    "schema,table,text",
    [
        ("public", "plain", '"public"."plain"'),
        ("public", 'a"b', '"public"."a""b"'),  # a quote inside only: doubled
        ("public", 'x"', '"public".x"'),  # ends with a quote: left bare
        ('s "q"', "T", 's "q"."T"'),
        ("public", "", '"public".""'),
    ],
)
def test_double_quoted(schema: str, table: str, text: str) -> None:
    assert double_quoted(schema, table) == text


@pytest.mark.parametrize(
    "text,parts",
    [
        ('"public"."plain"', ["public", "plain"]),
        ('"public"."a""b"', ["public", 'a"b']),
        ('"public".x"', ["public", 'x"']),  # recorded: pg case truncate_quoted_name_stops streams it
        ("a . b", ["a", "b"]),  # blanks around the separator are skipped
        (
            '"public"."a\'\'b"',
            ["public", "a'b"],
        ),  # every doubled quote char is collapsed, whatever the quoting
        ("c.s.t", ["c", "s", "t"]),
    ],
)
def test_parse_parts(text: str, parts: list[str]) -> None:
    assert parse_parts(text) == parts


@pytest.mark.parametrize(
    "text",
    [
        's "q"."T"',  # recorded: pg case stream_quoted_name_stops ("Unexpected input: \"")
        '"p"."x',  # an unterminated quote: "Invalid identifier"
        ".t",
        "a..b",
        "a.",
    ],
)
def test_what_debezium_cannot_parse(text: str) -> None:
    with pytest.raises(ValueError):
        parse_parts(text)
    assert not parses(text)


def test_stream_stop_lines() -> None:
    assert stream_stop_line("public", "plain") is None
    assert stream_stop_line("public", 'x"') is None
    assert stream_stop_line("Mixed Schema", "日本語") is None
    line = stream_stop_line('s "q"', "T")
    assert line is not None and "Debezium stops here too" in line  # (its last batch lost: lost_batch)
    other = stream_stop_line("public", "a''b")  # read back as a'b: not modelled, a loud stop without the mark
    assert other is not None and "not modelled" in other and "Debezium stops here too" not in other


def test_read_back_as_another_table() -> None:
    # recorded: pg case misread_name_changes_dropped (Debezium's log: "cannot load schema for table 'public.a'b'",
    # "... 's'q.t'")
    assert read_back("public", "a''b") == ("public", "a'b")
    assert read_back("s''q", "t") == ("s'q", "t")
    assert read_back("public", "a'b") == ("public", "a'b")  # a single one: itself
    assert read_back("public", "plain") == ("public", "plain")
    assert stream_stop_line("public", "a''b", other_captured=False) is None  # dropped, not a stop
