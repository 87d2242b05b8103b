"""A logical decoding message of the pgoutput stream (PgoutputStream._on_message, kept apart from stream.py's
row changes)."""

from __future__ import annotations

import random
import time

from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.source import sequence
from emulator.records import Record


def on_message(self, msg: bytes, lsn: int) -> None:
    """PgoutputStream._on_message: a logical decoding message (pg_logical_emit_message), transactional or not."""
    transactional, _msg_lsn, prefix, content = po.parse_message(msg)
    if transactional:
        if not self.filters.message_prefix_included(prefix):
            # read in the transaction, filtered: it begins it all the same (BEGIN, END with 0 events),
            # as a change of a table not captured does (pg case message_filtered_tx_begins)
            if self.skip_until is None:
                self.tx.touch()
            return
        if self._skip(lsn):
            return
        self.lsn_proc = lsn
        self.proc_op = "m"
        self.lsn_events = 1
        src = self.source(self.ts_us, "false", sequence(self.last_commit_lsn, lsn), "", "", self.xid, lsn)
        # Debezium counts each message under the Java identity of a per-message collection object
        collection = (
            "io.debezium.connector.postgresql.LogicalDecodingMessageMonitor$"
            f"LogicalDecodingMessageId@{random.getrandbits(31):x}"
        )
        block = self.tx.event_block(f"{self.xid}:{lsn}", collection) if self.tx.enabled else None
    else:
        # no BEGIN/COMMIT around it: it is its own commit point
        self.last_commit_lsn = lsn
        self.tx_epoch += 1  # source templates carry the last commit LSN (`sequence`)
        if not self.in_tx:  # Debezium's commitMessage: lsn_commit too, and the last txId is gone
            self.lsn_proc = self.lsn_commit = lsn
            self.proc_op = "m"
            self.lsn_events = 1
        if not self.filters.message_prefix_included(prefix):  # filtered after the offset moved
            return
        src = self.source(time.time_ns() // 1000, "false", sequence(lsn, lsn), "", "", None, lsn)
        block = None
    ns = time.time_ns()
    value = {
        "op": "m",
        "ts_ms": ns // 1_000_000,
        "source": src,
        "transaction": block,
        "message": {"prefix": prefix, "content": self._msg_content(content)},
    }
    self.dispatcher.message(
        Record(
            self.message_topic,
            self.msg_key_frame.encode({"prefix": prefix}),
            self.msg_value_frame.encode(value),
        )
    )
