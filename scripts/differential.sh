#!/usr/bin/env bash
# A live differential campaign: generated workloads through real Debezium 3.6.3 and the emulator, diffed
# record by record (emulator/testing/differential.py, docs/differential.md).
#   scripts/differential.sh --minutes 30 --seed 7 [--db pg|mariadb|mariadbconnector] [--out DIR]
# (--db mariadb also replays each recording with the emulator as the MariaDbConnector, mapped)
# Needs the oracle venv ($ORACLE_VENV, default /work/oracle: `pip install '.[oracle]'` into a venv of its own)
# and Java 17. Mismatches are minimized to one scenario and saved under DIR/findings/<name>/ in the layout of
# tests/data/pg/cases/<name>/. Exit 0: no mismatch; 1: mismatches found.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${EMULATOR_PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
MINUTES=10 SEED=1 DB=pg OUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --db) DB=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "differential.sh: unknown option $1 (--minutes N --seed S --db pg|mariadb|mariadbconnector --out DIR)" >&2; exit 2 ;;
  esac
done
OUT=${OUT:-differential-runs/$DB-seed$SEED}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
exec "$PY" -m emulator.testing.differential campaign --db "$DB" --minutes "$MINUTES" --seed "$SEED" --out "$OUT"
