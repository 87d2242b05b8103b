#!/usr/bin/env bash
# The test command: sets the machine up if needed, then runs the whole suite (real throwaway servers).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# --durations: the slowest tests in every CI log, to keep the suite under its time limit
exec .venv/bin/python -m pytest -q --durations=40 "$@"
