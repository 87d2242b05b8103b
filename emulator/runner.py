"""Wiring: configuration -> adapter + engine + output + offsets, and the retry loop around the coordinator
(`emulator.pipeline.coordinator`), which runs the connector itself."""

from __future__ import annotations

import logging
from pathlib import Path

from emulator.connectors.registry import connector_class, partition_of
from emulator.engine import Engine
from emulator.offsets import FileOffsetStore, MemoryOffsetStore, OffsetStore
from emulator.outputs.base import Output
from emulator.pipeline.coordinator import Coordinator

log = logging.getLogger("emulator")


def offset_store(config, output: Output | None = None) -> OffsetStore:
    topic = config.props.get("offset.storage.topic")
    from emulator.outputs.kafka import exactly_once

    if topic or exactly_once(config):
        return kafka_offset_store(config, output, topic or "connect-offsets")
    path = config.get("offset.storage.file.filename")
    if path:
        return FileOffsetStore(Path(path), partition_of(config))
    log.warning(
        "offset.storage.file.filename is not set: offsets are kept in memory only, a restart begins anew"
    )
    return MemoryOffsetStore()


def kafka_offset_store(
    config, output: Output | None, topic: str, bootstrap: str | None = None
) -> OffsetStore:
    """`offset.storage.topic`: offsets in Kafka (the output's cluster, else `bootstrap.servers`)."""
    from emulator.offsets_kafka import KafkaOffsetStore
    from emulator.outputs.kafka import KafkaOutput, producer_settings

    conf = output.conf if isinstance(output, KafkaOutput) else producer_settings(config, bootstrap)
    name = config.get("name") or config.get("topic.prefix")
    return KafkaOffsetStore(
        conf,
        topic,
        name,
        partition_of(config),
        partitions=int(config.props.get("offset.storage.partitions") or 25),
        replication_factor=int(config.props.get("offset.storage.replication.factor") or -1),
        output=output if isinstance(output, KafkaOutput) and output.transactional_id else None,
    )


class Runner:
    """One connector: `run()` blocks until `stop()` (or the end of an initial_only snapshot). Retriable
    failures restart the connector from its committed offsets, as Kafka Connect does, up to
    `errors.max.retries` times (-1: forever) with `retriable.restart.connector.wait.ms` between tries."""

    def __init__(
        self,
        config,
        output: Output,
        offsets: OffsetStore | None = None,
        *,
        progress_interval_s: float | None = 10.0,
        progress_bar: bool | None = False,
    ) -> None:
        """`progress_interval_s`: log snapshot progress and streaming rate/lag that often (None: never);
        `progress_bar`: a live snapshot bar on stderr (None: when stderr is a terminal, as the CLI asks)."""
        self.config = config
        flush_ms = int(config.get("offset.flush.interval.ms") or 1000)
        if getattr(output, "transactional_id", None):  # exactly-once: a transaction per interval
            flush_ms = int(config.props.get("transaction.boundary.interval.ms") or 200)
        from emulator.connect import dataplane

        plane = dataplane.build(config)  # ConfigError (exit 2) on a bad transform / converter option
        if plane is not None:  # the connector writes the internal form the data plane parses
            self.config = config = dataplane.internal_config(config)
        self.engine = Engine(output, offsets or offset_store(config, output), flush_ms, dataplane=plane)
        self.metrics = self.engine.metrics
        self.metrics.configure(config)
        self.cls = connector_class(config)
        self.connector = self.cls(config, self.engine)
        self.metrics.source = self.connector
        self.progress_interval_s = progress_interval_s
        self.progress_bar = progress_bar
        max_retries = config.get("errors.max.retries")
        self.max_retries = int(max_retries) if max_retries not in (None, "") else -1  # 0: no retry at all
        self.retry_wait_s = int(config.get("retriable.restart.connector.wait.ms") or 10000) / 1000.0

    def run(self) -> None:
        retries = 0
        reporter = None
        if self.progress_interval_s:
            from emulator.progress import ProgressReporter

            reporter = ProgressReporter(
                self.metrics,
                self.progress_interval_s,
                self.progress_bar,
                self.config.get("name") or self.config.get("topic.prefix") or "",
            )
            reporter.start()
        try:
            while True:
                try:
                    Coordinator(self.connector, self.config, self.engine).run()
                    return
                except KeyboardInterrupt:
                    return
                except Exception as e:
                    if not self.connector.is_retriable(e) or self.engine.stopping:
                        raise
                    from emulator.preflight import fatal_cause

                    fatal = fatal_cause(e, self.config)  # credentials, privileges: retrying cannot cure them
                    if fatal is not None:
                        raise fatal from e
                    if self.max_retries >= 0 and retries >= self.max_retries:
                        raise
                    retries += 1
                    log.warning(
                        "connector failed (%s: %s); restarting in %.1f s (retry %d of %s)",
                        type(e).__name__,
                        str(e).strip().splitlines()[0] if str(e).strip() else "",
                        self.retry_wait_s,
                        retries,
                        self.max_retries if self.max_retries >= 0 else "unlimited",
                    )
                    self._commit_after_failure(e)
                    self._close_connector()
                    if self.engine.stop_event.wait(self.retry_wait_s):
                        return
                    self.connector = self.cls(self.config, self.engine)
                    self.metrics.source = self.connector
        finally:
            self.metrics.streaming.connected = False
            if reporter is not None:
                reporter.stop()
            try:
                self.engine.close()
            finally:
                self._close_connector()

    def _commit_after_failure(self, exc: BaseException) -> None:
        """Save what was delivered; after a failure of the output itself (the source's position may already
        include the record that could not be written) the offsets stay where they are and the output starts
        afresh (`reset`), so the restarted connector sends everything after the saved offset again."""
        if not getattr(exc, "output_failure", False):
            try:
                self.engine.commit(force=True)
            except Exception as e:  # noqa: BLE001
                log.warning("offsets not committed (%s: %s)", type(e).__name__, e)
        reset = getattr(self.engine.output, "reset", None)
        if reset is not None:
            try:
                reset()
            except Exception as e:  # noqa: BLE001 - the next attempt fails and retries again
                log.warning("output reset failed: %s", e)

    def _close_connector(self) -> None:
        try:
            self.connector.close()
        except Exception as e:  # a broken connection may not close cleanly
            log.debug("closing the connector: %s", e)

    def stop(self) -> None:
        self.engine.stop()
