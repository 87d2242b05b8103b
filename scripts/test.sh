#!/usr/bin/env bash
# The test command: sets the machine up if needed, then runs the whole suite (real throwaway servers).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# byte-code of our own modules written once: every `python -m emulator` a test starts imports ~300 modules, which
# with PYTHONDONTWRITEBYTECODE set (as on some CI images) are compiled again at each start (~260 CPU-ms)
.venv/bin/python -m compileall -q -j 0 emulator sink tests bench scripts >/dev/null
# two pytest-xdist workers, each taking whole modules (--dist loadfile: a module's servers and fixtures stay in
# one process): most tests wait on servers, JVMs and quiet periods far more than they compute, so two modules
# side by side take about half the time on 2 cores (docs/test-time.md). DBZ_TEST_WORKERS=1 runs serially.
workers="${DBZ_TEST_WORKERS:-2}"
[ "$workers" = 1 ] || set -- -n "$workers" --dist loadfile "$@"
# --durations: the slowest tests in every CI log, to keep the suite under its time limit
exec .venv/bin/python -m pytest -q --durations=40 "$@"
