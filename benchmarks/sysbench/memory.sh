#!/usr/bin/env bash
# Memory footprint (issue #21): the router's resident memory with 100, 1,000 and 4,096 client
# connections that are open but nearly idle (sysbench oltp_point_select with --threads=N at a low
# --rate over all threads), and the queries per second of oltp_point_select at 16 threads, for the
# router as users start it (bin/shardgate run --config FILE, the JVM options its launcher gives) and,
# in the same run, as an earlier launcher (BASELINE_REF's bin/shardgate) starts it, with HAProxy
# (mode tcp, if installed) beside them. For each target and client count it records the process's
# VmRSS and VmHWM (/proc/PID/status), threads, the JVM's heap used and committed and metaspace used
# (jstat -gc) and the direct memory of the router's buffers (its /metrics gauge
# shardgate_memory_direct_bytes, when the jar has it). The cache is off (no `cache` section). One
# markdown report lands in benchmarks/results/memory-<stamp>.md.
#
# The real run (~10 min; run it in one go on a quiet machine):
#   benchmarks/sysbench/memory.sh
#   BASELINE_JAR=/tmp/main-all.jar benchmarks/sysbench/memory.sh   # the "before" router from another jar
# Smoke run (~3 min, checks the plumbing only):
#   CLIENTS="10 50" DURATION=3 ROUNDS=1 RESULTS=/tmp/smoke benchmarks/sysbench/memory.sh
#
# Settings (environment):
#   CLIENTS     100 1000 4096   client connections held open, in this order, by one sysbench each
#   RATE        100             sysbench --rate (transactions/s over all threads; a transaction is 10
#                               point selects) while the clients are held: idle-ish sessions
#   HOLD        10              seconds the clients stay connected after the last one logged in,
#                               before the sample
#   TARGETS     shardgate-before shardgate haproxy
#                               shardgate: bin/shardgate of this tree; shardgate-before: the same jar
#                               (or BASELINE_JAR) started by BASELINE_REF's bin/shardgate (the
#                               launcher before the change); haproxy: skipped when not installed;
#                               shardgate+WORD,WORD...: an experiment, bin/shardgate of this tree with
#                               JAVA_OPTS of the words starting with '-' and the others (NAME=VALUE)
#                               in its environment, e.g. shardgate+-XX:+UseParallelGC or
#                               shardgate+MALLOC_ARENA_MAX=2
#   BASELINE_REF main           git revision whose bin/shardgate starts shardgate-before
#   BASELINE_JAR                router jar for shardgate-before (default: this tree's)
#   DURATION    20              seconds of each 16-thread oltp_point_select run (throughput)
#   ROUNDS      3               interleaved throughput runs per target (the report keeps the median)
#   WARMUP      5               seconds of 16-thread load on each target before its first sample
#   TABLE_SIZE  10000           rows of the one sysbench table
#   DB_MAX_CONNECTIONS 5000     MariaDB max_connections (HAProxy needs one backend connection per client)
#   RESULTS     benchmarks/results
#
# 4,096 clients need file descriptors: the script raises `ulimit -n` to the hard limit (HAProxy needs
# two per client, sysbench one, the router one per client plus its pool). The router multiplexes:
# its backend side stays at the pool's few connections, which its default hostgroup pool bounds.
set -euo pipefail

LIB_NAME=memory
# shellcheck source=benchmarks/sysbench/lib.sh
. "$(dirname "$0")/lib.sh"

CLIENTS=${CLIENTS:-100 1000 4096}
RATE=${RATE:-100}
HOLD=${HOLD:-10}
TARGETS=${TARGETS:-shardgate-before shardgate haproxy}
BASELINE_REF=${BASELINE_REF:-main}
BASELINE_JAR=${BASELINE_JAR:-}
DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-5}
TABLE_SIZE=${TABLE_SIZE:-10000}
DB_MAX_CONNECTIONS=${DB_MAX_CONNECTIONS:-5000}
RESULTS=${RESULTS:-benchmarks/results}

command_line="CLIENTS='$CLIENTS' RATE=$RATE HOLD=$HOLD TARGETS='$TARGETS' BASELINE_REF=$BASELINE_REF BASELINE_JAR='$BASELINE_JAR' DURATION=$DURATION ROUNDS=$ROUNDS WARMUP=$WARMUP TABLE_SIZE=$TABLE_SIZE DB_MAX_CONNECTIONS=$DB_MAX_CONNECTIONS benchmarks/sysbench/memory.sh"

hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -ge 65536 ]; then ulimit -n 65536; else ulimit -n "$hard"; fi
max_clients=$(tr ' ' '\n' <<<"$CLIENTS" | sort -n | tail -n 1)
[ "$(ulimit -n)" -ge $((max_clients * 2 + 1000)) ] \
  || say "warning: ulimit -n is $(ulimit -n); $max_clients clients through HAProxy need about $((max_clients * 2 + 1000))"

ensure_tools sysbench:sysbench jstat:openjdk-17-jdk-headless curl:curl ss:iproute2
make_work memory
cleanup() { stop_all; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

build_shardgate
commit=$(git_commit) # what the jar was built from (the tree may move on during the run)

# --- MariaDB -------------------------------------------------------------------------------------
mariadb_source=$(mariadb_kind auto)
say "starting MariaDB ($mariadb_source)"
start_mariadb "$mariadb_source" 1 "$work/mariadb.log" --innodb-buffer-pool-size 128M \
  --arg=--max-connections="$DB_MAX_CONNECTIONS" --arg=--open-files-limit=$((DB_MAX_CONNECTIONS * 2 + 1000)) \
  --arg=--thread-cache-size=256
db_port=${shard_port[0]}
sysbench_common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-db="$DB_NAME" --tables=1
  --table-size="$TABLE_SIZE" --rand-type=uniform)
sysbench oltp_point_select "${sysbench_common[@]}" --mysql-port="$db_port" --mysql-user="$DB_USER" \
  --mysql-password="$DB_PASSWORD" prepare >"$work/prepare.log" 2>&1 \
  || { cat "$work/prepare.log" >&2; die "sysbench prepare failed"; }

# --- targets -------------------------------------------------------------------------------------
declare -A port pid http user password
router_config() { # port -> the server section (HTTP on $router_http), one hostgroup, the schema not
  # sharded, pool and cache at their defaults (cache off)
  router_server_config "$1" "$work/$router_name-data" "$router_http"
  echo "hostgroups:"
  echo "  - {id: 10, writer: \"127.0.0.1:$db_port\", user: $DB_USER, password: $DB_PASSWORD}"
  echo "schemas:"
  echo "  - {name: $DB_NAME, default_hostgroup: 10}"
}
baseline_launcher() { # -> a copy of BASELINE_REF's bin/shardgate beside lib/ holding the jar it runs
  local dir="$work/baseline"
  mkdir -p "$dir/bin" "$dir/lib"
  git -C "$root" show "$BASELINE_REF:bin/shardgate" >"$dir/bin/shardgate" || die "no bin/shardgate at $BASELINE_REF"
  chmod +x "$dir/bin/shardgate"
  cp "${BASELINE_JAR:-$jar}" "$dir/lib/shardgate-router-core-baseline-all.jar"
  echo "$dir/bin/shardgate"
}
active=()
for target in $TARGETS; do
  case "$target" in
    shardgate | shardgate-before | shardgate+*)
      router_name=$target
      router_http=$(free_port)
      launcher="$root/bin/shardgate"
      [ "$target" != shardgate-before ] || launcher=$(baseline_launcher)
      # as users start it: the launcher's own JVM options (JAVA_OPTS unset), or an experiment's
      java_opts="" environment=()
      words=()
      [ "$target" = "${target#shardgate+}" ] || IFS=, read -ra words <<<"${target#shardgate+}"
      for word in "${words[@]}"; do
        if [ "${word#-}" != "$word" ]; then java_opts="$java_opts $word"; else environment+=("$word"); fi
      done
      # the experiment's environment for this router only (export in a subshell would lose its pid)
      for word in "${environment[@]}"; do export "${word?}"; done
      SHARDGATE_LAUNCHER=$launcher start_shardgate "$target" router_config "${java_opts# }"
      for word in "${environment[@]}"; do unset "${word%%=*}"; done
      port[$target]=$shardgate_port pid[$target]=$shardgate_pid http[$target]=$router_http
      user[$target]=$APP_USER password[$target]=$APP_PASSWORD
      say "$target on 127.0.0.1:${port[$target]} (pid ${pid[$target]}): $(tr '\0' ' ' <"/proc/${pid[$target]}/cmdline")"
      ;;
    haproxy)
      if ! command -v haproxy >/dev/null; then
        say "haproxy is not installed: skipping it (apt-get install haproxy)"
        haproxy_absent=1
        continue
      fi
      port[haproxy]=$(free_port)
      start_haproxy "${port[haproxy]}" "$db_port"
      pid[haproxy]=$haproxy_pid http[haproxy]="" user[haproxy]=$DB_USER password[haproxy]=$DB_PASSWORD
      ;;
    *) die "unknown target '$target' (shardgate, shardgate-before, haproxy)" ;;
  esac
  active+=("$target")
done
[ ${#active[@]} -gt 0 ] || die "no target to measure"

sysbench_args() { # target threads seconds [options...] -> $args: sysbench oltp_point_select through target
  local target=$1 threads=$2 seconds=$3
  shift 3
  args=(oltp_point_select "${sysbench_common[@]}" --mysql-port="${port[$target]}" --mysql-user="${user[$target]}"
    --mysql-password="${password[$target]}" --threads="$threads" --time="$seconds" --report-interval=0 "$@" run)
}
sysbench_on() { # target threads seconds log: sysbench in the foreground, its output in log
  sysbench_args "$1" "$2" "$3"
  run_logged "$4" sysbench "${args[@]}"
}
established() { ss -Htn state established "( sport = :$1 )" | wc -l; } # port -> server-side connections
jvm_heap() { # pid -> "heap-used-MiB heap-committed-MiB metaspace-used-MiB" (jstat -gc), "- - -" if not a JVM
  jstat -gc "$1" 2>/dev/null | awk 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i}
    NR == 2 {printf "%.0f %.0f %.0f\n", ($(col["S0U"]) + $(col["S1U"]) + $(col["EU"]) + $(col["OU"])) / 1024,
             ($(col["S0C"]) + $(col["S1C"]) + $(col["EC"]) + $(col["OC"])) / 1024, $(col["MU"]) / 1024; ok = 1}
    END {if (!ok) print "- - -"}'
}
direct_mib() { # target -> the router's direct buffer memory (MiB) from /metrics, "-" without the gauge
  [ -n "${http[$1]}" ] || { echo -; return; }
  curl -fsS "http://127.0.0.1:${http[$1]}/metrics" 2>/dev/null \
    | awk '/^shardgate_memory_direct_bytes / {printf "%.1f\n", $2 / 1048576; found = 1} END {if (!found) print "-"}'
}

# --- measure -------------------------------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
stamp=$(date -u +%Y-%m-%d-%H%M)
mkdir -p "$RESULTS"
report="$RESULTS/memory-$stamp.md"
rows=()
for target in "${active[@]}"; do
  say "warming up $target (16 threads, ${WARMUP}s)"
  sysbench_on "$target" 16 "$WARMUP" "$work/warmup-$target.log" || true
  for n in $CLIENTS; do
    say "$target: holding $n clients"
    log="$work/hold-$target-$n.log"
    # long enough to log every client in and hold them; stopped after the sample
    sysbench_args "$target" "$n" 600 --rate="$RATE"
    sysbench "${args[@]}" >"$log" 2>&1 & # a simple command: $! is sysbench itself, which `stop` ends
    sb=$!
    pids+=("$sb")
    deadline=$((SECONDS + 300))
    until [ "$(established "${port[$target]}")" -ge "$n" ]; do
      kill -0 "$sb" 2>/dev/null || { tail -n 20 "$log" >&2; die "sysbench stopped before $n clients were in"; }
      [ $SECONDS -lt $deadline ] || die "$target: only $(established "${port[$target]}") of $n clients connected after 300 s"
      sleep 1
    done
    sleep "$HOLD"
    p=${pid[$target]}
    connected=$(established "${port[$target]}")
    read -r heap_used heap_committed metaspace < <(jvm_heap "$p")
    row="| $target | $n | $connected | $(($(status_kb "$p" VmRSS) / 1024)) | $(($(status_kb "$p" VmHWM) / 1024)) | $heap_used | $heap_committed | $metaspace | $(direct_mib "$target") | $(awk '/^Threads:/ {print $2}' "/proc/$p/status")"
    # the live heap (after a full collection, which the sample above did not see): what sessions cost
    live="-"
    if [ "$heap_used" != - ]; then
      jcmd "$p" GC.run >/dev/null 2>&1 && read -r live _ < <(jvm_heap "$p")
    fi
    row="$row | $live |"
    rows+=("$row")
    say "  $row"
    stop "$sb"
    grep -q FATAL "$log" && say "  (sysbench reported errors: $(grep -c FATAL "$log") FATAL lines)"
    # the sessions close; the next count starts from an idle router
    deadline=$((SECONDS + 60))
    while [ "$(established "${port[$target]}")" -gt 0 ] && [ $SECONDS -lt $deadline ]; do sleep 1; done
  done
done

say "throughput: oltp_point_select, 16 threads, ${DURATION}s, $ROUNDS interleaved rounds"
declare -A qps_runs cpu_runs
for round in $(seq 1 "$ROUNDS"); do
  for target in "${active[@]}"; do
    log="$work/qps-$target-$round.log"
    before=$(cpu_ticks "${pid[$target]}")
    sysbench_on "$target" 16 "$DURATION" "$log" || true
    after=$(cpu_ticks "${pid[$target]}")
    read -r _ qps queries errors _ < <(parse_sysbench "$log")
    qps_runs[$target]="${qps_runs[$target]:-}${qps_runs[$target]:+ }$qps"
    cpu_runs[$target]="${cpu_runs[$target]:-}${cpu_runs[$target]:+ }$(us_per_query $((after - before)) "$queries")"
    say "  $target round $round: qps=$qps errors=$errors"
  done
done
median() { tr ' ' '\n' <<<"$1" | grep -v '^-$' | sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print "-"}'; }
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report --------------------------------------------------------------------------------------
{
  echo "# Memory footprint: idle-ish clients through the router and HAProxy"
  echo
  echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M')"
  echo "- command: \`$command_line\`"
  echo "- machine: $(machine_line)"
  echo "- JDK: $(java -version 2>&1 | head -n 1)"
  echo "- MariaDB: $(mariadb_version) ($mariadb_source); sysbench: $(sysbench --version), 1 table x $TABLE_SIZE rows"
  echo "- shardgate: $(basename "$jar") built at commit $commit, started by this tree's bin/shardgate (JAVA_OPTS unset)"
  echo "- shardgate-before: $(basename "${BASELINE_JAR:-$jar}") started by bin/shardgate of $BASELINE_REF ($(git -C "$root" rev-parse --short "$BASELINE_REF"))"
  if [ -n "${pid[haproxy]:-}" ]; then
    echo "- HAProxy: $(haproxy -v | head -n 1), mode tcp"
  elif [ -n "${haproxy_absent:-}" ]; then
    echo "- HAProxy: absent (not installed), not measured"
  fi
  for target in "${active[@]}"; do
    [ "$target" = haproxy ] || echo "- $target's command line: \`$(tr '\0' ' ' <"/proc/${pid[$target]}/cmdline" | sed 's/ $//')\`"
  done
  echo "- routers: one hostgroup, default pool (200 per server, multiplexed), cache off; clients: sysbench"
  echo "  oltp_point_select --threads=N --rate=$RATE (over all threads), sampled ${HOLD}s after the Nth logged in"
  echo "- load average before measuring: $load_before, after: $load_after (2 shared cores: other work skews results)"
  echo
  echo "VmHWM is the peak resident memory since the process started (it includes the 16-thread warm-up"
  echo "and the smaller counts before). Heap and metaspace from \`jstat -gc\`; direct: the router's"
  echo "\`shardgate_memory_direct_bytes\` gauge (\"-\": the jar has none, or not a JVM). Live heap: heap"
  echo "used after \`jcmd PID GC.run\`, taken after the other columns (what the sessions themselves hold)."
  echo
  echo "| target | clients | connected | RSS MiB | HWM MiB | heap used MiB | heap committed MiB | metaspace MiB | direct MiB | threads | live heap MiB |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Throughput: sysbench oltp_point_select, 16 threads, ${DURATION}s, $ROUNDS interleaved rounds (median; every round's in order):"
  echo
  echo "| target | qps (median) | qps per round | CPU µs/query per round | vs shardgate-before |"
  echo "|---|---:|---|---|---:|"
  base=$(median "${qps_runs[shardgate-before]:-}")
  for target in "${active[@]}"; do
    q=$(median "${qps_runs[$target]}")
    ratio=$(awk -v q="$q" -v b="$base" 'BEGIN {if (b + 0 > 0 && q + 0 > 0) printf "%.3f", q / b; else print "-"}')
    echo "| $target | $q | ${qps_runs[$target]} | ${cpu_runs[$target]} | $ratio |"
  done
} >"$report"
say "wrote $report"
cat "$report"
