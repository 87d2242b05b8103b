"""One signal, whatever channel it came through (Debezium's SignalRecord)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class SignalError(ValueError):
    """A malformed signal: logged and skipped, never fatal."""


@dataclass(frozen=True, slots=True)
class SignalRecord:
    id: str
    type: str
    data: Any  # JSON text, a parsed object or None
    channel: str
