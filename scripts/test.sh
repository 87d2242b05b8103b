#!/usr/bin/env bash
# The test command: sets the machine up if needed, then runs the whole suite (real throwaway servers).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# byte-code of our own modules written once: every `python -m emulator` a test starts imports ~300 modules, which
# with PYTHONDONTWRITEBYTECODE set (as on some CI images) are compiled again at each start (~260 CPU-ms)
.venv/bin/python -m compileall -q -j 0 emulator sink tests bench scripts >/dev/null
# --durations: the slowest tests in every CI log, to keep the suite under its time limit
exec .venv/bin/python -m pytest -q --durations=40 "$@"
