#!/usr/bin/env bash
# Idempotent setup for a fresh machine: PostgreSQL 15 and MariaDB server binaries (for the throwaway servers the
# demo, the tests and the benchmarks start), then .venv with the project, its test dependencies and the Spark sink's
# (PySpark, deltalake; the sink also needs a Java 17+ runtime: openjdk-17-jre-headless). The install builds the
# optional C accelerator emulator/fast*.c (setup.py) where gcc and Python's headers exist: again when it changes.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo"
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || ! command -v psql >/dev/null 2>&1; then
  echo "setup: installing PostgreSQL 15 (apt)" >&2
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq postgresql-15 postgresql-client-15 >/dev/null
fi
if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
  echo "setup: installing MariaDB server (apt, for the MySQL/MariaDB connector tests)" >&2
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq mariadb-server >/dev/null
fi
if ! command -v java >/dev/null 2>&1; then
  echo "setup: installing a Java runtime (apt, for the PySpark sink)" >&2
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv" >&2
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import emulator, psycopg, orjson, sqlglot, pytest, xdist, pymysqlreplication, pyspark, deltalake" 2>/dev/null \
   || [ pyproject.toml -nt .venv/.installed ] || [ ! -e .venv/.installed ] \
   || [ -n "$(find emulator -maxdepth 1 -name 'fast*.[ch]' -newer .venv/.installed)" ]; then
  echo "setup: installing the project into .venv" >&2
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[test,sink]"
  touch .venv/.installed
fi
