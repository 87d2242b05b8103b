"""Debezium's SignalProcessor: reads the enabled channels, hands each signal to its action.

Source-table rows arrive synchronously from the stream (`on_signal_row`, called by the connector as it
emits the row; the incremental snapshot's own open/close rows go to the window machine instead). The other
channels are read by `poll`, which the connector calls while the stream is idle and every so often while it
is busy (the file channel on its own `signal.poll.interval.ms` cadence). A malformed signal (bad JSON,
unknown type, missing fields, a refused filter) is logged and skipped; it never stops the connector. Work
that must wait until the signal's own event is out (a blocking snapshot) is queued in `deferred`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from emulator.incremental import watermarks
from emulator.incremental.machine import MALFORMED, IncrementalSnapshot
from emulator.settings.common import Settings
from emulator.signals import channels as ch
from emulator.signals.actions import ACTIONS
from emulator.signals.record import SignalError, SignalRecord

log = logging.getLogger("emulator.signals")


class SignalProcessor:
    def __init__(self, source: Any, settings: Settings, engine, machine: IncrementalSnapshot) -> None:
        self.source = source  # the connector: tables, blocking_snapshot
        self.engine = engine
        self.machine = machine
        self.settings = settings
        conf = settings.signals
        # names outside channels.KNOWN are refused at start (emulator/settings/checks.py)
        self.channels = {c.strip().lower() for c in conf.enabled_channels if c.strip()} or {ch.SOURCE}
        self.readers: list[Any] = []
        if ch.FILE in self.channels:
            interval = max(conf.poll_interval_ms or 5000, 1) / 1000.0
            self.readers.append(ch.FileChannel(conf.file or "file-signals.txt", interval))
        self.in_process = ch.InProcessChannel() if ch.IN_PROCESS in self.channels else None
        if self.in_process is not None:
            self.readers.append(self.in_process)
        self.kafka: ch.KafkaChannel | None = None  # opened on first poll: the connector is streaming by then
        self.deferred: list[Callable[[], None]] = []

    # -- channels ---------------------------------------------------------------------------------------
    def on_signal_row(self, row: dict) -> None:
        """A row inserted into the signal table (seen in the stream)."""
        rec = ch.SourceChannel.record(row)
        if rec.type in (watermarks.OPEN, watermarks.CLOSE):
            self.machine.guard("incremental snapshot window", self.machine.on_watermark, rec.id, rec.type)
            return
        if ch.SOURCE in self.channels:
            self.handle(rec)

    def poll(self) -> None:
        """Called while the stream is idle and every so often while it is busy."""
        self.machine.poll()
        for reader in self.readers:
            for rec in reader.read():
                self.handle(rec)
        if ch.KAFKA in self.channels:
            self._poll_kafka()
        if self.deferred:
            self.run_deferred()

    def _poll_kafka(self) -> None:
        if self.kafka is None:
            try:
                s = self.settings
                self.kafka = ch.KafkaChannel(
                    s.signals, s.topics.prefix, getattr(s.config, "props", None) or {}
                )
            except Exception as e:  # a missing broker must not stop the capture
                log.error("Kafka signal channel unavailable: %s", e)
                self.channels.discard(ch.KAFKA)
                return
        for rec in self.kafka.read():
            self.handle(rec)

    def send(self, sid: str, kind: str, data: Any = None) -> None:
        """The in-process channel (any thread): handled at the connector's next poll."""
        if self.in_process is None:
            raise SignalError("signal.enabled.channels does not include in-process")
        self.in_process.send(sid, kind, data)

    # -- handling ---------------------------------------------------------------------------------------
    def handle(self, rec: SignalRecord) -> None:
        """Handle one signal; anything wrong with it is logged and the signal skipped."""
        sid, kind, data = rec.id, rec.type, rec.data
        try:
            if not kind:
                raise SignalError("the signal has no type")
            if isinstance(data, str):
                try:
                    payload = json.loads(data) if data.strip() else {}
                except ValueError:
                    log.warning(
                        "Signal '%s' has been received but the data '%s' cannot be parsed", sid, data[:300]
                    )
                    return
            elif data is None:
                payload = {}
            else:
                payload = data
            if not isinstance(payload, dict):
                raise SignalError("data is not a JSON object")
            log.info("Received signal '%s' of type '%s' (%s channel)", sid, kind, rec.channel)
            action = ACTIONS.get(kind)
            if action is None:
                log.warning("Signal '%s' has been received but the type '%s' is not recognized", sid, kind)
                return
            self.machine.guard(f"signal '{sid}' ({kind})", action, self, sid, payload)
        except MALFORMED as e:
            log.error("signal '%s' (%s) ignored: %s", sid, kind, e)

    def run_deferred(self) -> None:
        while self.deferred:
            fn = self.deferred.pop(0)
            try:
                fn()
            except Exception as e:
                if self.machine.retriable(e):
                    raise
                text = str(e).strip()
                log.warning(
                    "Error while executing requested blocking snapshot (%s: %s); streaming resumes",
                    type(e).__name__,
                    text.splitlines()[0] if text else "",
                )

    def close(self) -> None:
        if self.kafka is not None:
            self.kafka.close()
            self.kafka = None
