"""(session 16) DML and DDL forms MySQL/MariaDB users write that no other MariaDB draw writes: REPLACE (a new row, a
key collision, one deleting two rows through a unique key), INSERT ... ON DUPLICATE KEY UPDATE (VALUES(), several
rows mixing new and colliding keys), INSERT IGNORE, INSERT ... SELECT, multi-table UPDATE and DELETE (JOIN and
comma forms, USING), UPDATE/DELETE ... ORDER BY ... LIMIT, an UPDATE that changes nothing, LOCK TABLES around
writes, `CREATE TABLE IF NOT EXISTS` naming a table that exists (with other columns), and executable comments
(`/*!NNNNN ... */`, as mysqldump writes them): a partition clause inside one, `ALTER TABLE ... DISABLE KEYS`
wholly inside one.

Drawn by `generate` from a random stream of its own (`dml-<seed>`): every older seed keeps its workload.
"""

from __future__ import annotations

import random
from typing import Any


class _Scenario:
    def __init__(self, name: str) -> None:
        self.name, self.pre, self.stream, self.props = name, [], [], {}


def dml(rng: random.Random, s: Any, t: str) -> None:
    """Two tables, `t` (a primary key and a unique key) and `t_b` (rows pointing at `t` by `ref`)."""
    s.pre += [
        f"CREATE TABLE {t} (id INT PRIMARY KEY, u VARCHAR(8) NULL, v INT NOT NULL DEFAULT 0, w TEXT, UNIQUE KEY uq_u (u));",
        f"INSERT INTO {t} VALUES (1, 'u1', 10, 'one'), (2, 'u2', 20, 'two'), (3, 'u3', 30, NULL), (4, NULL, 40, 'four');",
        f"CREATE TABLE {t}_b (id INT PRIMARY KEY, ref INT, x INT);",
        f"INSERT INTO {t}_b VALUES (1, 1, 100), (2, 2, 200), (3, 4, 300), (4, 9, 400);",
    ]
    forms = [
        # REPLACE: a new row; a key collision (DELETE + INSERT or an UPDATE in the binlog, as the server chooses);
        # a row colliding with two others (its key and another's unique value)
        [f"REPLACE INTO {t} (id, u, v) VALUES (50, 'u50', 5);"],
        [f"REPLACE INTO {t} VALUES (1, 'u1', 11, 'replaced');"],
        [f"REPLACE INTO {t} SET id = 2, u = 'u3', v = 22;"],
        [f"REPLACE INTO {t}_b SELECT id + 10, id, v FROM {t} WHERE id <= 2;"],
        # ON DUPLICATE KEY UPDATE
        [f"INSERT INTO {t} (id, u, v) VALUES (3, 'x', 1) ON DUPLICATE KEY UPDATE v = v + 1, w = 'dup';"],
        [
            f"INSERT INTO {t} (id, u, v, w) VALUES (60, 'u60', 6, 'new'), (4, 'u4', 44, 'w4') "
            "ON DUPLICATE KEY UPDATE v = VALUES(v), w = CONCAT(COALESCE(w, ''), VALUES(w));"
        ],
        [f"INSERT INTO {t} (id, v) VALUES (1, 1) ON DUPLICATE KEY UPDATE v = v;"],  # (changes nothing)
        [f"INSERT IGNORE INTO {t} (id, u, v) VALUES (1, 'zz', 0), (70, 'u70', 7);"],
        [f"INSERT INTO {t}_b (id, ref, x) SELECT id + 100, id, v * 2 FROM {t} WHERE v >= 20;"],
        # multi-table UPDATE / DELETE
        [
            f"UPDATE {t} JOIN {t}_b ON {t}.id = {t}_b.ref SET {t}.v = {t}.v + 1, {t}_b.x = {t}_b.x * 2 WHERE {t}_b.id <= 3;"
        ],
        [f"UPDATE {t} a, {t}_b b SET b.x = a.v WHERE a.id = b.ref AND a.id = 2;"],
        [f"DELETE {t}, {t}_b FROM {t} JOIN {t}_b ON {t}.id = {t}_b.ref WHERE {t}.id = 4;"],
        [f"DELETE FROM b USING {t}_b AS b LEFT JOIN {t} AS a ON a.id = b.ref WHERE a.id IS NULL;"],
        # ORDER BY ... LIMIT, a no-op UPDATE
        [f"UPDATE {t} SET v = v + 1000 ORDER BY id DESC LIMIT 2;"],
        [f"DELETE FROM {t}_b ORDER BY x DESC, id LIMIT 1;"],
        [f"UPDATE {t} SET w = w WHERE id = 1;"],
        # LOCK TABLES around writes (mysqldump's restore)
        [f"LOCK TABLES {t} WRITE, {t}_b WRITE;", f"INSERT INTO {t}_b VALUES (90, 1, 9);", "UNLOCK TABLES;"],
        # DDL: IF NOT EXISTS on an existing table (other columns), executable comments
        [
            f"CREATE TABLE IF NOT EXISTS {t} (id INT PRIMARY KEY, other TEXT);",
            f"INSERT INTO {t} (id) VALUES (80);",
        ],
        [
            f"CREATE TABLE {t}_p (id INT NOT NULL PRIMARY KEY, v INT) /*!50100 PARTITION BY HASH (id) PARTITIONS 2 */;",
            f"INSERT INTO {t}_p VALUES (1, 1), (2, 2);",
        ],
        [f"/*!40000 ALTER TABLE {t}_b DISABLE KEYS */;", f"INSERT INTO {t}_b VALUES (91, 2, 1);"],
        [f"/*!40000 ALTER TABLE {t}_b ENABLE KEYS */;", f"UPDATE {t}_b SET x = 5 WHERE id = 1;"],
        [
            f"CREATE TABLE {t}_d (id INT PRIMARY KEY, v INT) /*!40101 DEFAULT CHARSET=latin1 */;",
            f"INSERT INTO {t}_d VALUES (1, 1);",
        ],
    ]
    for form in rng.sample(forms, k=rng.randint(5, 10)):
        s.stream += form
    s.stream.append(f"UPDATE {t} SET v = v + 1 WHERE id = 1;")


def dml_draw(seed: int, scenarios: list[Any]) -> None:
    """The `dml` scenario in ~40 % of seeds, a random stream of its own."""
    r = random.Random(f"dml-{seed}")
    if r.random() >= 0.4:
        return
    s = _Scenario(f"dml{len(scenarios)}")
    dml(r, s, s.name)
    scenarios.append(s)
