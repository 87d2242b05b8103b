#!/usr/bin/env bash
# The end-to-end demo: a throwaway PostgreSQL, the emulator capturing it, records printed and checked.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m emulator.demo "$@"
