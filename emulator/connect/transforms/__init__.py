"""Single message transforms and predicates, as Kafka Connect and Debezium define them.

Each family lives in its own module and registers its classes under their Java class names (Kafka's
`$Key` / `$Value` forms are separate entries). `build_chain(props)` turns the `transforms=` /
`predicates=` properties into the stages Kafka Connect's `TransformationChain` would run; options are
validated there, so a bad one stops the start with a one-line message naming `transforms.X.option`.
"""

from __future__ import annotations

# importing the families fills REGISTRY / PREDICATES
from emulator.connect.transforms import (  # noqa: F401, E402
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
from emulator.connect.transforms.base import (
    PREDICATES,
    REGISTRY,
    Predicate,
    Stage,
    Transform,
    TransformConfigError,
    build_chain,
)

__all__ = [
    "PREDICATES",
    "REGISTRY",
    "Predicate",
    "Stage",
    "Transform",
    "TransformConfigError",
    "build_chain",
]
