"""bench_pg.py's parts, one job per module: the bench table and its workloads (workload), the server's side
(server), /proc figures (procstats), each drain's CPU split and the speed probe (counters), the engines as
subprocesses (engines), tailing their topic files (tail), the catch-up and latency measurements (catchup,
latency), the two suites (suites) and the final table (report).
"""

import sys
from pathlib import Path

# the emulator's own test helpers (emulator.testing) come from this repository, not an installed copy
REPO = Path(__file__).resolve().parent.parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
