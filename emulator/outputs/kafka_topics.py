"""Debezium/Connect `topic.creation.*` for the Kafka output: which settings a new topic is created with."""

from __future__ import annotations

import re


class TopicCreation:
    """Debezium/Connect `topic.creation.*`: groups matched in `topic.creation.groups` order, then `default`."""

    def __init__(self, props: dict[str, str]) -> None:
        self.groups: list[tuple[str, list[re.Pattern], list[re.Pattern], dict[str, str]]] = []
        enabled = (props.get("topic.creation.enable") or "true").strip().lower() != "false"
        if not enabled:
            return
        names = [g.strip() for g in (props.get("topic.creation.groups") or "").split(",") if g.strip()]
        for g in [*names, "default"]:
            prefix = f"topic.creation.{g}."
            settings = {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)}
            if g == "default" and not settings:
                continue
            inc = [re.compile(p.strip()) for p in settings.pop("include", "").split(",") if p.strip()]
            exc = [re.compile(p.strip()) for p in settings.pop("exclude", "").split(",") if p.strip()]
            if g == "default":
                inc = [re.compile(".*")]
            self.groups.append((g, inc, exc, settings))

    def settings_for(self, topic: str) -> dict[str, str] | None:
        default = next((s for g, _, _, s in self.groups if g == "default"), None)
        for g, inc, exc, settings in self.groups:
            if any(p.fullmatch(topic) for p in inc) and not any(p.fullmatch(topic) for p in exc):
                if g != "default" and default is not None:
                    return {
                        **{k: v for k, v in default.items() if k not in ("partitions", "replication.factor")},
                        **{
                            k: default[k]
                            for k in ("partitions", "replication.factor")
                            if k in default and k not in settings
                        },
                        **settings,
                    }
                return settings
        return None
