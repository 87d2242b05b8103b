"""Single message transforms and predicates, as Kafka Connect and Debezium define them.

Each family lives in its own module and registers its classes under their Java class names (Kafka's
`$Key` / `$Value` forms are separate entries). `build_chain(props)` turns the `transforms=` /
`predicates=` properties into the stages Kafka Connect's `TransformationChain` would run; options are
validated there, so a bad one stops the start with a one-line message naming `transforms.X.option`.
"""

from __future__ import annotations

from typing import Any

from emulator.connect.transforms import base
from emulator.connect.transforms.base import (
    PREDICATES,
    REGISTRY,
    Predicate,
    Stage,
    Transform,
    TransformConfigError,
)


def load_families() -> None:
    """Importing the families fills REGISTRY / PREDICATES: done by the first chain that names a transform or
    a predicate, so a start with neither imports none of them."""
    from emulator.connect.transforms import (  # noqa: F401
        cast,
        debezium_misc,
        fields,
        flatten,
        headers,
        mask,
        outbox,
        predicates,
        routing,
        timestamps,
        unwrap,
    )


def build_chain(settings: Any) -> list[Stage]:
    """:func:`~emulator.connect.transforms.base.build_chain`, the families imported when it needs them."""
    if settings.common.transforms or settings.common.predicates:
        load_families()
    return base.build_chain(settings)


__all__ = [
    "PREDICATES",
    "REGISTRY",
    "Predicate",
    "Stage",
    "Transform",
    "TransformConfigError",
    "build_chain",
    "load_families",
]
