"""Where the MongoDB connector reads from: a server (pymongo) or a recorded change stream (a file).

The connector talks to its source through five calls — `collections()`, `watch(...)` (a change stream:
`try_next()`, `resume_token`, a context manager), `operation_time()`, `find(...)` (snapshot reads) and
`collection(...)` (incremental-snapshot chunks and watermarks) — so the change-stream boundary can be
replaced without touching the connector's decoding, snapshot or offsets:

* `ServerStreams`: a replica set or sharded cluster through pymongo (`mongodb://`, `mongodb+srv://`).
* `RecordedStreams`: `mongodb.connection.string=file:///path/stream.jsonl`, a recorded change stream — one
  change event per line in canonical extended JSON, exactly as the server's change stream delivered it
  (`_id` resume token, `operationType`, `clusterTime`, `ns`, `documentKey`, `fullDocument`, ...). A
  `create` event names a collection before it has documents. The file may grow while the connector reads
  it (the behaviour suite appends as it "writes"); a snapshot reads the documents the recording holds at
  its start (inserts, updates with their full document, deletes folded in order). Resuming after a token
  the file no longer holds fails as the server does (error 286, ChangeStreamHistoryLost). Incremental
  snapshots and watermarks need a server: `collection()` refuses with one line.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlparse

from bson import Timestamp
from bson.codec_options import DEFAULT_CODEC_OPTIONS, DatetimeConversion
from bson.json_util import CANONICAL_JSON_OPTIONS, JSONOptions
from bson.json_util import dumps as bson_dumps
from bson.json_util import loads as bson_loads

SYSTEM_DATABASES = frozenset({"admin", "local", "config"})
CODEC = DEFAULT_CODEC_OPTIONS.with_options(
    tz_aware=True, datetime_conversion=DatetimeConversion.DATETIME_AUTO
)
# the recording's documents decode as the driver's do (dicts, tz-aware datetimes)
_LOAD = JSONOptions(document_class=dict, tz_aware=True, datetime_conversion=DatetimeConversion.DATETIME_AUTO)


class SourceError(RuntimeError):
    """A source the connector cannot use (one line naming the property)."""


def open_source(uri: str | None, client_factory) -> Any:
    """The source `mongodb.connection.string` names; `client_factory()` connects a pymongo client."""
    if uri and uri.startswith("file:"):
        return RecordedStreams(unquote(urlparse(uri).path))
    return ServerStreams(client_factory())


class ServerStreams:
    def __init__(self, client) -> None:
        self.client = client

    def collections(self, db_included: Callable[[str], bool]) -> list[tuple[str, str]]:
        """(db, collection) of the databases `db_included` admits: excluded ones are never listed (the
        connector's user may not be allowed to)."""
        out = []
        for db in sorted(self.client.list_database_names()):
            if db in SYSTEM_DATABASES or not db_included(db):
                continue
            for coll in sorted(self.client[db].list_collection_names(filter={"type": "collection"})):
                out.append((db, coll))
        return out

    def watch(self, pipeline: list[dict], scope: str, target: str | None, **kw: Any):
        if scope == "database":
            where = self.client.get_database(target, codec_options=CODEC)
        elif scope == "collection":
            db, _, coll = (target or "").partition(".")
            where = self.client.get_database(db, codec_options=CODEC).get_collection(coll)
        else:
            where = self.client
        return where.watch(pipeline, **kw)

    def operation_time(self) -> Timestamp | None:
        hello = self.client.admin.command("hello")
        return hello.get("operationTime") or (hello.get("$clusterTime") or {}).get("clusterTime")

    def find(self, db: str, coll: str, flt: dict, batch_size: int):
        return self.client[db].get_collection(coll, codec_options=CODEC).find(flt, batch_size=batch_size)

    def collection(self, db: str, coll: str):
        return self.client[db].get_collection(coll, codec_options=CODEC)

    def close(self) -> None:
        self.client.close()


# -- recorded change streams ----------------------------------------------------------------------------------


def token_at(n: int) -> dict:
    """The resume token after the recording's `n`-th event (opaque to the connector, like the server's)."""
    return {"_data": f"{n:016X}"}


def dumps(event: dict) -> str:
    """One recording line (canonical extended JSON: Int64, Timestamp, ObjectId... survive the round trip)."""
    return bson_dumps(event, json_options=CANONICAL_JSON_OPTIONS)


class RecordedStreams:
    def __init__(self, path: str) -> None:
        if not os.path.exists(path):
            raise SourceError(f"mongodb.connection.string: no recorded change stream at {path}")
        self.path = path
        self.events: list[dict] = []
        self._offset = 0  # bytes of the file read so far (whole lines only)

    def _refresh(self) -> None:
        with open(self.path, "rb") as f:
            f.seek(self._offset)
            data = f.read()
        end = data.rfind(b"\n") + 1  # a line still being written is read next time
        for line in data[:end].splitlines():
            if line.strip():
                self.events.append(bson_loads(line, json_options=_LOAD))
        self._offset += end

    def collections(self, db_included: Callable[[str], bool]) -> list[tuple[str, str]]:
        self._refresh()
        seen: set[tuple[str, str]] = set()
        for e in self.events:
            ns = e.get("ns") or {}
            if ns.get("db") and ns.get("coll") and ns["db"] not in SYSTEM_DATABASES:
                if e.get("operationType") == "drop":
                    seen.discard((ns["db"], ns["coll"]))
                else:
                    seen.add((ns["db"], ns["coll"]))
        return sorted(c for c in seen if db_included(c[0]))

    def watch(self, pipeline: list[dict], scope: str, target: str | None, **kw: Any) -> RecordedStream:
        ops = operation_filter(pipeline)
        self._refresh()
        start = len(self.events)
        token, at = kw.get("resume_after"), kw.get("start_at_operation_time")
        if token is not None:
            start = self._after(token)
        elif at is not None:
            start = next((i for i, e in enumerate(self.events) if e["clusterTime"] >= at), len(self.events))
        full = kw.get("full_document")
        return RecordedStream(
            self, start, ops, scope, target, full, bool(kw.get("full_document_before_change"))
        )

    def _after(self, token: dict) -> int:
        for i, e in enumerate(self.events):
            if e.get("_id") == token:
                return i + 1
        if token == token_at(0) and not self.events:
            return 0
        try:  # a post-batch token of an idle stream: the position itself, when the file still has it
            n = int(token["_data"], 16)
        except (KeyError, TypeError, ValueError):
            n = -1
        if 0 <= n <= len(self.events) and (n == 0 or self.events[n - 1].get("_id") == token_at(n)):
            return n
        from pymongo.errors import OperationFailure

        raise OperationFailure(
            "Resume of change stream was not possible, as the resume point may no longer be in the oplog",
            code=286,
        )

    def operation_time(self) -> Timestamp | None:
        self._refresh()
        return self.events[-1]["clusterTime"] if self.events else Timestamp(int(time.time()), 0)

    def find(self, db: str, coll: str, flt: dict, batch_size: int) -> list[dict]:
        """The documents of `db.coll` the recording holds now (only `{}` or `{"_id": value}` filters)."""
        self._refresh()
        docs: dict[Any, dict] = {}
        for e in self.events:
            ns = e.get("ns") or {}
            if ns.get("db") != db or ns.get("coll") != coll:
                continue
            kind = e.get("operationType")
            if kind in ("insert", "replace", "update") and e.get("fullDocument") is not None:
                docs[_hashable(e["documentKey"]["_id"])] = e["fullDocument"]
            elif kind == "delete":
                docs.pop(_hashable(e["documentKey"]["_id"]), None)
            elif kind == "drop":
                docs.clear()
        if set(flt) - {"_id"}:
            raise SourceError(f"snapshot filter {flt!r}: a recorded change stream filters on _id only")
        out = list(docs.values())
        if "_id" in flt:
            out = [d for d in out if d["_id"] == flt["_id"]]
        return out

    def collection(self, db: str, coll: str):
        raise SourceError(
            "incremental snapshots and signal watermarks need a MongoDB server, not a recorded "
            "change stream (mongodb.connection.string=file:...)"
        )

    def close(self) -> None:
        return None


class RecordedStream:
    """One change stream over the recording: the events after `start`, as the server's cursor returns them."""

    def __init__(
        self,
        source: RecordedStreams,
        start: int,
        ops: frozenset[str] | None,
        scope: str,
        target: str | None,
        full: str | None,
        pre_images: bool,
    ) -> None:
        self.source = source
        self.pos = start
        self.ops = ops
        self.scope, self.target = scope, target
        self.full = full
        self.pre_images = pre_images
        self.resume_token: dict = source.events[start - 1]["_id"] if start else token_at(0)

    def __enter__(self) -> RecordedStream:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def close(self) -> None:
        return None

    def try_next(self) -> dict | None:
        src = self.source
        while True:
            if self.pos >= len(src.events):
                src._refresh()
                if self.pos >= len(src.events):
                    return None  # the post-batch token stays at the last event read
            e = src.events[self.pos]
            self.pos += 1
            self.resume_token = e["_id"]
            if self._matches(e):
                return self._shaped(e)

    def _matches(self, e: dict) -> bool:
        if self.ops is not None and e.get("operationType") not in self.ops:
            return False
        ns = e.get("ns") or {}
        if self.scope == "database":
            return ns.get("db") == self.target
        if self.scope == "collection":
            return f"{ns.get('db')}.{ns.get('coll')}" == self.target
        return True

    def _shaped(self, e: dict) -> dict:
        """What the server sends for the stream's options: an update's full document only when asked for
        (`updateLookup` / `whenAvailable`), pre-images only with `fullDocumentBeforeChange`."""
        out = dict(e)
        if out.get("operationType") == "update" and not self.full:
            out.pop("fullDocument", None)
        if not self.pre_images:
            out.pop("fullDocumentBeforeChange", None)
        return out


def operation_filter(pipeline: list[dict]) -> frozenset[str] | None:
    """The connector's own `$match` on operationType; any other stage cannot run on a recording."""
    ops: frozenset[str] | None = None
    for stage in pipeline:
        match = stage.get("$match") if len(stage) == 1 else None
        inner = match.get("operationType") if isinstance(match, dict) and len(match) == 1 else None
        if isinstance(inner, dict) and set(inner) == {"$in"}:
            ops = frozenset(inner["$in"]) if ops is None else ops & frozenset(inner["$in"])
            continue
        raise SourceError(f"cursor.pipeline stage {stage!r} cannot be applied to a recorded change stream")
    return ops


def _hashable(v: Any) -> Any:
    return dumps({"v": v}) if isinstance(v, dict | list) else v
