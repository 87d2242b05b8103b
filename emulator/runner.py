"""Wiring: configuration -> adapter + engine + output + offsets, and the retry loop around the coordinator
(`emulator.pipeline.coordinator`), which runs the connector itself."""

from __future__ import annotations

import logging
from pathlib import Path

from emulator.connectors.registry import connector_class, partition_for
from emulator.engine import Engine
from emulator.offsets import FileOffsetStore, MemoryOffsetStore, OffsetStore
from emulator.outputs.base import Output
from emulator.pipeline.coordinator import Coordinator
from emulator.settings import settings_for

log = logging.getLogger("emulator")


def offset_store(config, output: Output | None = None) -> OffsetStore:
    offsets = settings_for(config).offsets
    topic = offsets.storage_topic
    from emulator.outputs.kafka import exactly_once

    if topic or exactly_once(config):
        return kafka_offset_store(config, output, topic or "connect-offsets")
    if offsets.file_filename:
        return FileOffsetStore(Path(offsets.file_filename), partition_for(settings_for(config)))
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
    s = settings_for(config)
    return KafkaOffsetStore(
        conf,
        topic,
        s.common.name or s.topics.prefix,
        partition_for(s),
        partitions=s.offsets.storage_partitions,
        replication_factor=s.offsets.storage_replication_factor,
        flush_timeout_s=s.offsets.flush_timeout_ms / 1000.0,
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
        plane=None,
    ) -> None:
        """`progress_interval_s`: log snapshot progress and streaming rate/lag that often (None: never);
        `progress_bar`: a live snapshot bar on stderr (None: when stderr is a terminal, as the CLI asks)."""
        self.config = config
        s = settings_for(config)
        flush_ms = s.offsets.flush_interval_ms
        if getattr(output, "transactional_id", None):  # exactly-once: a transaction per interval
            flush_ms = s.offsets.transaction_boundary_interval_ms
        from emulator.connect import dataplane

        if plane is None:  # the CLI passes the one it built (validated) already; None: build it here
            plane = dataplane.build(config)  # ConfigError (exit 2) on a bad transform / converter option
        elif plane is dataplane.NONE:
            plane = None
        if plane is not None:  # the connector writes the internal form the data plane parses
            self.config = config = dataplane.internal_config(config)
            if getattr(output, "simple_headers", False):  # the Kafka output writes Connect's default headers
                from emulator.outputs.kafka_headers import simple_header_bytes

                plane.converters.worker_headers(simple_header_bytes)
        self.settings = s = settings_for(config)
        self.engine = Engine(output, offsets or offset_store(config, output), flush_ms, dataplane=plane)
        self.metrics = self.engine.metrics
        self.metrics.configure(config)
        self.cls = connector_class(s.common.connector_class)
        self.connector = self.cls(config, self.engine)
        self.metrics.source = self.connector
        self.progress_interval_s = progress_interval_s
        self.progress_bar = progress_bar
        self.max_retries = s.errors.max_retries  # -1: forever, 0: no retry at all
        self.retry_wait_s = s.errors.retriable_restart_wait_ms / 1000.0

    def run(self) -> None:
        retries = 0
        reporter = None
        if self.progress_interval_s:
            from emulator.progress import ProgressReporter

            reporter = ProgressReporter(
                self.metrics,
                self.progress_interval_s,
                self.progress_bar,
                self.settings.common.name or self.settings.topics.prefix or "",
            )
            reporter.start()
        try:
            while True:
                try:
                    Coordinator(self.connector, self.settings.snapshot, self.engine).run()
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
        else:
            self.engine.abandon_background_commit()  # before reset(): it may be polling the old producer
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
