"""The suite's in-process `Run` itself: what it hands the checks must be everything the connector emitted.
A record it drops looks like a change the connector lost (session 16: a DELETE queued at a stop was left
behind, and the restart rightly resumed after it, so the replay kept a deleted row)."""

from __future__ import annotations

import time

from harness import Run


def test_stop_keeps_every_record_emitted_before_it(backend):
    backend.create_table("t", {"id": "int"})
    run = Run(backend, **{"snapshot.mode": "no_data"}).start()
    run.barrier()  # everything so far read: the queue now holds only what follows
    backend.insert("t", *({"id": i} for i in range(1, 21)))
    topic = backend.topic("t")
    queue = run.cap.output.queue

    def queued() -> int:  # the inserts' records the connector emitted and nobody has read yet
        return sum(1 for r in list(queue.queue) if r is not None and r.topic == topic)

    deadline = time.monotonic() + 60
    while queued() < 20:
        assert time.monotonic() < deadline, f"the connector emitted {queued()} of the 20 inserts"
        time.sleep(0.02)
    run.stop()
    assert sorted(run.ids("t", "c")) == list(range(1, 21))
