#!/usr/bin/env bash
# The test command: sets the machine up if needed, then runs the whole suite (real throwaway servers).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -q "$@"
