"""The AvroConverter's `basic.auth.*` options, as Confluent 7.0.16's serializer (Debezium 3.6.3's) reads them.

A `mock://` registry has no REST service: the options are never read (session 24, diffcamp34: Debezium 3.6.3 ran
`basic.auth.credentials.source=NOPE` with a user info on `mock://s24auth`, and `differential_connect diff` found the
same 24 records on pg_connect.sql). A real registry takes the credentials from where
`basic.auth.credentials.source` says: `URL` by default (AbstractKafkaSchemaSerDeConfig's
BASIC_AUTH_CREDENTIALS_SOURCE_DEFAULT in the oracle's kafka-schema-serializer-7.0.16.jar, printed with javap), so the
URL's user info and not `basic.auth.user.info`; `USER_INFO` the user info alone. Before, the emulator sent the user
info whatever the source, and took SASL_INHERIT (the worker's JAAS login) without reading it."""

from __future__ import annotations

import pytest

from emulator.config import ConfigError
from emulator.connect.converters import registry_for

URL = "http://u:p@127.0.0.1:1"


def _auth(url: str, opts: dict[str, str]):
    rest = registry_for(url, opts, "value.converter.").client._rest_client
    return rest.auth, rest.base_urls


def test_a_mock_registry_never_reads_them() -> None:
    opts = {"basic.auth.credentials.source": "NOPE", "basic.auth.user.info": "user:secret"}
    assert registry_for("mock://s24auth", opts, "value.converter.") is registry_for("mock://s24auth", {}, "")


def test_the_default_source_is_the_url() -> None:
    assert _auth(URL, {"basic.auth.user.info": "a:b"}) == (("u", "p"), [URL])
    assert _auth("http://127.0.0.1:1", {"basic.auth.user.info": "a:b"})[0] is None
    assert _auth(URL, {"basic.auth.credentials.source": "URL", "basic.auth.user.info": "a:b"})[0] == (
        "u",
        "p",
    )


def test_user_info_is_read_with_its_source_only() -> None:
    got = _auth(URL, {"basic.auth.credentials.source": "USER_INFO", "basic.auth.user.info": "a:b"})
    assert got == (("a", "b"), ["http://127.0.0.1:1"])


@pytest.mark.parametrize("source", ["SASL_INHERIT", "NOPE"])
def test_other_sources_are_refused_with_a_real_registry(source: str) -> None:
    with pytest.raises(ConfigError) as e:
        registry_for(URL, {"basic.auth.credentials.source": source}, "value.converter.")
    assert str(e.value).startswith("value.converter.basic.auth.credentials.source: ")
