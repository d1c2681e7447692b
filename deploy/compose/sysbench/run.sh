#!/usr/bin/env bash
# Waits until the routers answer through HAProxy, loads the sysbench tables through them
# (CREATE TABLE and INSERTs are routed by the rules in ../router/router1.yaml) and runs the
# scenarios one after the other. Everything is an environment variable of the sysbench service in
# docker-compose.yml:
#   MYSQL_HOST MYSQL_PORT MYSQL_USER MYSQL_PASSWORD MYSQL_DB   where to connect (HAProxy by default)
#   SCENARIO ("oltp_read_only scatter"): space-separated; a sysbench built-in (oltp_read_only,
#     oltp_point_select, oltp_read_write...) or `scatter` (scatter.lua next to this script: statements
#     on every shard of the hash-sharded tables, merged by the router, and binding-group joins)
#   TABLES (8) TABLE_SIZE (10000) THREADS (16) DURATION (60 s per scenario)
#   HASH_TABLES (5,6,7,8: the tables the rules hash-shard on id, for `scatter`)
#   EVENTS (0: no limit; with DURATION=0 each scenario ends after this many transactions)
#   PREPARE (auto: only when sbtest1 is missing; always; never)   SYSBENCH_OPTS (extra options)
# Tables are prepared with --auto-inc=off: the INSERTs carry the ids, which the hash-sharded
# tables are routed by.
set -euo pipefail

: "${MYSQL_HOST:=haproxy}" "${MYSQL_PORT:=6033}" "${MYSQL_USER:=sbtest}" "${MYSQL_PASSWORD:=sbtest-secret}"
: "${MYSQL_DB:=sbtest}" "${SCENARIO:=oltp_read_only scatter}" "${TABLES:=8}" "${TABLE_SIZE:=10000}"
: "${THREADS:=16}" "${DURATION:=60}" "${EVENTS:=0}" "${PREPARE:=auto}" "${SYSBENCH_OPTS:=}" "${WAIT_SECONDS:=300}"
: "${HASH_TABLES:=5,6,7,8}"
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"

say() { printf '[sysbench-runner] %s\n' "$*"; }
sql() {
  mariadb --skip-ssl -h"$MYSQL_HOST" -P"$MYSQL_PORT" -u"$MYSQL_USER" -p"$MYSQL_PASSWORD" "$MYSQL_DB" -N -e "$1"
}

say "waiting for Shardgate at $MYSQL_HOST:$MYSQL_PORT (up to ${WAIT_SECONDS}s)"
waited=0
until sql 'SELECT 1' >/dev/null 2>&1; do
  if [ "$waited" -ge "$WAIT_SECONDS" ]; then
    say "no answer after ${WAIT_SECONDS}s; last error:"
    sql 'SELECT 1' || true
    exit 1
  fi
  sleep 2
  waited=$((waited + 2))
done
say "connected: $(sql 'SELECT VERSION()')"

common=(--db-driver=mysql --mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" --mysql-user="$MYSQL_USER"
  --mysql-password="$MYSQL_PASSWORD" --mysql-db="$MYSQL_DB" --mysql-ssl=off --tables="$TABLES"
  --table-size="$TABLE_SIZE")

prepare=false
case "$PREPARE" in
  always) prepare=true ;;
  never) ;;
  auto) sql 'SELECT 1 FROM sbtest1 LIMIT 1' >/dev/null 2>&1 || prepare=true ;;
  *) say "PREPARE must be auto, always or never, was '$PREPARE'"; exit 2 ;;
esac
if $prepare; then
  say "preparing $TABLES tables x $TABLE_SIZE rows through the routers"
  # shellcheck disable=SC2086
  sysbench oltp_read_write "${common[@]}" cleanup >/dev/null || true
  sysbench oltp_read_write "${common[@]}" --auto-inc=off --threads="$TABLES" prepare
fi

for scenario in $SCENARIO; do
  case "$scenario" in
    scatter) script=("$here/scatter.lua" --hash-tables="$HASH_TABLES") ;;
    *) script=("$scenario" --auto-inc=off) ;;
  esac
  say "running $scenario: $THREADS threads, ${DURATION}s (0: no limit), $EVENTS transactions (0: no limit)"
  # shellcheck disable=SC2086
  sysbench "${script[@]}" "${common[@]}" --threads="$THREADS" --time="$DURATION" --events="$EVENTS" \
    --report-interval=10 $SYSBENCH_OPTS run
done
