"""ConfigError (one line naming the property) and the quoting of values in error messages."""

from __future__ import annotations


def _one_line(text: str) -> str:
    return " ".join(str(text).split("\n")).replace("\r", " ")


def show_value(value: object) -> str:
    """A value quoted for an error message, kept on one line."""
    text = str(value)
    text = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    if len(text) > 200:
        text = text[:200] + "..."
    return f"'{text}'"


class ConfigError(Exception):
    """An invalid or unreadable configuration.  ``str()`` is a single line naming the property.

    ``property`` is the offending property name (``None`` for file-level problems); ``problems`` lists every
    ``(property, message)`` found when several properties are wrong at once (the message shows the first).
    """

    def __init__(
        self,
        message: str,
        property: str | None = None,
        problems: list[tuple[str | None, str]] | None = None,
    ) -> None:
        message = _one_line(message)
        super().__init__(message)
        self.property = property
        self.problems = problems if problems is not None else [(property, message)]

    def __str__(self) -> str:
        return _one_line(self.args[0]) if self.args else ""
