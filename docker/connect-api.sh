#!/bin/sh
# The Kafka Connect REST calls operators script, against the emulator's worker exactly as against Kafka
# Connect. CONNECT_URL defaults to http://localhost:8083. Each call prints the JSON answer and the HTTP code.
#   docker/connect-api.sh register docker/connectors/postgres.json
#   docker/connect-api.sh status inventory-postgres
set -eu
URL="${CONNECT_URL:-http://localhost:8083}"
JSON='Content-Type: application/json'
call() { curl -sS -w '\nHTTP %{http_code}\n' -H 'Accept: application/json' "$@"; }
cmd="${1:-list}"
[ $# -gt 0 ] && shift
case "$cmd" in
  list)          call "$URL/connectors?expand=status&expand=info" ;;
  plugins)       call "$URL/connector-plugins?connectorsOnly=false" ;;
  register)      call -X POST -H "$JSON" --data @"$1" "$URL/connectors/" ;;
  validate)      call -X PUT -H "$JSON" --data @"$2" "$URL/connector-plugins/$1/config/validate" ;;
  status)        call "$URL/connectors/$1/status" ;;
  config)        call "$URL/connectors/$1/config" ;;
  set-config)    call -X PUT -H "$JSON" --data @"$2" "$URL/connectors/$1/config" ;;
  patch-config)  call -X PATCH -H "$JSON" --data "$2" "$URL/connectors/$1/config" ;;
  tasks)         call "$URL/connectors/$1/tasks" ;;
  pause)         call -X PUT "$URL/connectors/$1/pause" ;;
  resume)        call -X PUT "$URL/connectors/$1/resume" ;;
  stop)          call -X PUT "$URL/connectors/$1/stop" ;;
  restart)       call -X POST "$URL/connectors/$1/restart?includeTasks=true&onlyFailed=false" ;;
  restart-task)  call -X POST "$URL/connectors/$1/tasks/0/restart" ;;
  offsets)       call "$URL/connectors/$1/offsets" ;;
  alter-offsets) call -X PATCH -H "$JSON" --data "$2" "$URL/connectors/$1/offsets" ;;
  reset-offsets) call -X DELETE "$URL/connectors/$1/offsets" ;;
  topics)        call "$URL/connectors/$1/topics" ;;
  metrics)       call "$URL/connectors/$1/metrics" ;;
  prometheus)    curl -sS "$URL/metrics" ;;
  loggers)       call "$URL/admin/loggers" ;;
  log-level)     call -X PUT -H "$JSON" --data "{\"level\": \"$2\"}" "$URL/admin/loggers/$1" ;;
  delete)        call -X DELETE "$URL/connectors/$1" ;;
  *) echo "usage: $0 list|plugins|register FILE|validate PLUGIN FILE|status|config|tasks|pause|resume|stop|restart|restart-task|offsets|reset-offsets|topics|metrics|delete NAME|set-config NAME FILE|patch-config NAME JSON|alter-offsets NAME JSON|prometheus|loggers|log-level LOGGER LEVEL" >&2
     exit 2 ;;
esac
