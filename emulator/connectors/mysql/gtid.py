"""GTID sets as the binlog connectors keep them in their offsets (`gtids`).

MariaDB: `domain-server-seq` per replication domain, comma separated (`0-1-42,1-2-7`); the set of completed
transactions is the last GTID of each domain (what `@slave_connect_state` takes).
MySQL: `uuid:1-5:7-9` intervals per source UUID, comma separated (what COM_BINLOG_DUMP_GTID takes).
`gtid.source.includes` / `gtid.source.excludes` select the sources, `domain-server` (MariaDB: Debezium's
MariaDbGtidStreamId.asSourceFilterValue) or the server UUID (MySQL), used for positioning and, with
`gtid.source.filter.dml.events=true` (the default), whose transactions' rows are emitted (`source_filter`).
"""

from __future__ import annotations

import re
from collections.abc import Callable


def source_filter(
    includes: list[re.Pattern] | None, excludes: list[re.Pattern] | None, dml: bool
) -> Callable[[str], bool] | None:
    """Debezium's GTID DML filter (BinlogStreamingChangeEventSource.getGtidDmlSourceFilter): None when
    `gtid.source.filter.dml.events=false` or no list is set, else whether a transaction whose GTID source
    (`domain-server` or the server UUID) is this has its rows emitted; the include list wins over the exclude
    list (MariaDbConnectorConfig / MySqlConnectorConfig)."""
    if not dml or not (includes or excludes):
        return None
    if includes:
        return lambda source: any(p.fullmatch(source) for p in includes)
    return lambda source: not any(p.fullmatch(source) for p in excludes or ())


class MariaGtidSet:
    def __init__(self, text: str | None = None) -> None:
        self.domains: dict[int, tuple[int, int]] = {}  # domain -> (server, seq)
        for part in (text or "").split(","):
            part = part.strip()
            if part:
                d, s, n = part.split("-")
                self.domains[int(d)] = (int(s), int(n))

    def add(self, gtid: str) -> None:
        d, s, n = gtid.split("-")
        self.domains[int(d)] = (int(s), int(n))

    def filtered(self, includes: list[re.Pattern] | None, excludes: list[re.Pattern] | None) -> MariaGtidSet:
        out = MariaGtidSet()
        for d, v in self.domains.items():
            name = f"{d}-{v[0]}"  # domain-server, as Debezium's MariaDbGtidSet.retainAll tests it
            if includes and not any(p.fullmatch(name) for p in includes):
                continue
            if excludes and any(p.fullmatch(name) for p in excludes):
                continue
            out.domains[d] = v
        return out

    def contains(self, gtid: str) -> bool:
        d, _s, n = (int(x) for x in gtid.split("-"))
        cur = self.domains.get(d)
        return cur is not None and n <= cur[1]

    def contains_all(self, other: MariaGtidSet) -> bool:
        """Every transaction of `other` is in this set: sequence numbers grow per domain."""
        return all(self.contains(f"{d}-{s}-{n}") for d, (s, n) in other.domains.items())

    def __bool__(self) -> bool:
        return bool(self.domains)

    def __str__(self) -> str:
        return ",".join(f"{d}-{s}-{n}" for d, (s, n) in sorted(self.domains.items()))


class MySqlGtidSet:
    def __init__(self, text: str | None = None) -> None:
        self.uuids: dict[str, list[list[int]]] = {}
        for part in (text or "").replace("\n", "").split(","):
            part = part.strip()
            if not part:
                continue
            uuid, *ranges = part.split(":")
            ivs = self.uuids.setdefault(uuid.lower(), [])
            for r in ranges:
                a, _, b = r.partition("-")
                ivs.append([int(a), int(b or a)])
            ivs.sort()

    def add(self, gtid: str) -> None:
        uuid, _, n = gtid.rpartition(":")
        n = int(n)
        ivs = self.uuids.setdefault(uuid.lower(), [])
        for iv in ivs:
            if iv[0] <= n <= iv[1]:
                return
            if n == iv[1] + 1:
                iv[1] = n
                self._merge(ivs)
                return
            if n == iv[0] - 1:
                iv[0] = n
                self._merge(ivs)
                return
        ivs.append([n, n])
        ivs.sort()

    @staticmethod
    def _merge(ivs: list[list[int]]) -> None:
        ivs.sort()
        i = 0
        while i < len(ivs) - 1:
            if ivs[i][1] + 1 >= ivs[i + 1][0]:
                ivs[i][1] = max(ivs[i][1], ivs[i + 1][1])
                del ivs[i + 1]
            else:
                i += 1

    def contains(self, gtid: str) -> bool:
        uuid, _, n = gtid.rpartition(":")
        n = int(n)
        return any(a <= n <= b for a, b in self.uuids.get(uuid.lower(), []))

    def contains_all(self, other: MySqlGtidSet) -> bool:
        """Every interval of `other` lies inside one of this set's intervals (they are kept merged)."""
        for uuid, ivs in other.uuids.items():
            mine = self.uuids.get(uuid, [])
            if not all(any(a <= lo and hi <= b for a, b in mine) for lo, hi in ivs):
                return False
        return True

    def __bool__(self) -> bool:
        return any(self.uuids.values())

    def filtered(self, includes: list[re.Pattern] | None, excludes: list[re.Pattern] | None) -> MySqlGtidSet:
        out = MySqlGtidSet()
        for u, ivs in self.uuids.items():
            if includes and not any(p.fullmatch(u) for p in includes):
                continue
            if excludes and any(p.fullmatch(u) for p in excludes):
                continue
            out.uuids[u] = [list(iv) for iv in ivs]
        return out

    def __str__(self) -> str:
        return ",".join(
            u + "".join(f":{a}" if a == b else f":{a}-{b}" for a, b in ivs)
            for u, ivs in sorted(self.uuids.items())
            if ivs
        )
