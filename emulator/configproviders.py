"""Kafka Connect config providers: secrets kept out of the configuration file.

    config.providers=file,env,dir
    config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider
    config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider
    config.providers.dir.class=org.apache.kafka.common.config.provider.DirectoryConfigProvider
    database.password=${file:/run/secrets/db.properties:password}
    database.user=${env:DB_USER}
    database.sslpassword=${dir:/run/secrets:ssl-password}

As Kafka Connect's ConfigTransformer does, every value is scanned once for ``${alias:path:key}`` (or
``${alias:key}``) references to a provider listed in ``config.providers``; a reference to an alias that is not
listed is left as it is (it may be a literal). The three providers Kafka ships are emulated:

* FileConfigProvider - ``path`` is a Java properties file, ``key`` a property in it;
* DirectoryConfigProvider - ``path`` is a directory, ``key`` the name of a regular file in it, whose whole
  content (UTF-8, nothing trimmed) is the value;
* EnvVarConfigProvider - ``${alias:NAME}``: the environment variable (``param.allowlist.pattern``, a regex,
  limits which ones may be read).

``config.providers.<alias>.param.allowed.paths`` (KIP-993) limits the file and directory providers to those
directories. Where Connect would leave a reference it cannot resolve in place (a missing key or file) and
let the connector fail later with a confusing error, the emulator stops at once: ConfigError naming the
property (exit 2). The resolved values are never logged; :attr:`emulator.config.Config.raw` keeps the
configuration as written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

FILE = "org.apache.kafka.common.config.provider.FileConfigProvider"
ENV = "org.apache.kafka.common.config.provider.EnvVarConfigProvider"
DIRECTORY = "org.apache.kafka.common.config.provider.DirectoryConfigProvider"
PROVIDER_CLASSES = (FILE, ENV, DIRECTORY)

# Kafka's ConfigTransformer.DEFAULT_PATTERN
_VAR = re.compile(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}")


def _error(prop: str, message: str):
    from emulator.settings.errors import ConfigError

    return ConfigError(f"{prop}: {message}", prop)


class _Provider:
    def __init__(self, alias: str, cls: str, params: dict[str, str]) -> None:
        self.alias = alias
        self.cls = cls
        self.params = params
        allowed = params.get("allowed.paths")
        self.allowed = (
            [Path(os.path.normpath(p.strip())) for p in allowed.split(",") if p.strip()] if allowed else None
        )
        pattern = params.get("allowlist.pattern")
        try:
            self.env_allow = re.compile(pattern) if pattern else None
        except re.error as e:
            raise _error(
                f"config.providers.{alias}.param.allowlist.pattern", f"invalid regular expression: {e}"
            ) from None
        self._files: dict[str, dict[str, str]] = {}

    def _check_path(self, prop: str, path: str) -> Path:
        p = Path(os.path.normpath(path))
        if not p.is_absolute():
            p = Path(os.path.normpath(Path.cwd() / p))
        if self.allowed is not None and not any(p == a or a in p.parents for a in self.allowed):
            raise _error(
                prop,
                f"${{{self.alias}:...}} reads {path}, outside config.providers.{self.alias}"
                ".param.allowed.paths",
            )
        return p

    def get(self, prop: str, path: str | None, key: str, environ: Mapping[str, str]) -> str:
        ref = f"${{{self.alias}:{path + ':' if path is not None else ''}{key}}}"
        if self.cls == ENV:
            if path:
                raise _error(
                    prop, f"{ref}: the environment provider takes ${{{self.alias}:NAME}}, without a path"
                )
            if self.env_allow is not None and not self.env_allow.fullmatch(key):
                raise _error(
                    prop,
                    f"{ref}: environment variable {key} is not allowed by "
                    f"config.providers.{self.alias}.param.allowlist.pattern",
                )
            if key not in environ:
                raise _error(prop, f"{ref}: environment variable {key} is not set")
            return environ[key]
        if not path:
            raise _error(prop, f"{ref}: a path is required (${{{self.alias}:PATH:KEY}})")
        p = self._check_path(prop, path)
        if self.cls == FILE:
            values = self._files.get(str(p))
            if values is None:
                from emulator.settings.properties import decode_properties_text, parse_properties

                try:
                    values = parse_properties(decode_properties_text(p.read_bytes()))
                except OSError as e:
                    raise _error(prop, f"{ref}: cannot read {path} ({e.strerror or e})") from None
                self._files[str(p)] = values
            if key not in values:
                raise _error(prop, f"{ref}: {path} has no property {key}")
            return values[key]
        # DirectoryConfigProvider: a regular file directly in the directory
        f = p / key
        if (
            "/" in key
            or key in ("", ".", "..")
            or not f.is_file()
            or f.is_symlink()
            and not f.resolve().is_file()
        ):
            raise _error(prop, f"{ref}: {path} has no file {key}")
        try:
            return f.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise _error(prop, f"{ref}: cannot read {f} ({getattr(e, 'strerror', None) or e})") from None


def providers_of(props: Mapping[str, str]) -> dict[str, _Provider]:
    aliases = [a.strip() for a in (props.get("config.providers") or "").split(",") if a.strip()]
    out: dict[str, _Provider] = {}
    for alias in aliases:
        prop = f"config.providers.{alias}.class"
        cls = (props.get(prop) or "").strip()
        if not cls:
            raise _error(
                prop, f"a value is required for the config provider '{alias}' listed in config.providers"
            )
        if cls not in PROVIDER_CLASSES:
            raise _error(
                prop,
                f"config provider {cls!r} is not supported by this emulator; supported: "
                + ", ".join(PROVIDER_CLASSES),
            )
        prefix = f"config.providers.{alias}.param."
        params = {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)}
        out[alias] = _Provider(alias, cls, params)
    return out


def resolve(props: Mapping[str, str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """`props` with every reference to a configured provider replaced by its value (one pass, as Connect)."""
    providers = providers_of(props)
    if not providers:
        return dict(props)
    env = os.environ if environ is None else environ
    out: dict[str, str] = {}
    for name, value in props.items():
        if "${" not in value or name.startswith("config.providers"):
            out[name] = value
            continue

        def sub(m: re.Match[str], name: str = name) -> str:
            provider = providers.get(m.group(1))
            if provider is None:
                return m.group(0)  # not a configured provider: left as written, as Connect does
            return provider.get(name, m.group(3), m.group(4), env)

        out[name] = _VAR.sub(sub, value)
    return out
