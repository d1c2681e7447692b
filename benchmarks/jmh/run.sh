#!/usr/bin/env bash
# Every JMH benchmark of the benchmarks module in one run (packet decode/encode, response scan,
# digest, plan-cache hit, cold plan, multi-shard merge, result-cache hit), with -prof gc for the
# bytes allocated per operation. Builds the jar, runs it, and writes
# benchmarks/results/jmh-YYYY-MM-DD-HHMM.{json,md}: the markdown holds the command, the date and
# commit, the machine (CPUs, model, RAM, kernel, load average before and after), the JDK, and the
# table (benchmarks/jmh/report.py).
#
#   benchmarks/jmh/run.sh                                   # all of them, ~9 min (45 benchmarks x 8 s)
#   benchmarks/jmh/run.sh 'MultiShardMerge|CacheHit'        # a subset (a JMH regex)
#   FORKS=1 WARMUP=1 ITERATIONS=1 TIME=200ms benchmarks/jmh/run.sh Digest   # a quick check
#
# Settings (environment):
#   FORKS 1, WARMUP 3, ITERATIONS 5, TIME 1s    JMH's -f, -wi, -i, and -w/-r
#   JMH_OPTS                                    extra JMH options (e.g. "-jvmArgs -XX:+UseParallelGC")
#   NOTE                                        a line put at the top of the report
#   RESULTS benchmarks/results                  output directory
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

FORKS=${FORKS:-1}
WARMUP=${WARMUP:-3}
ITERATIONS=${ITERATIONS:-5}
TIME=${TIME:-1s}
JMH_OPTS=${JMH_OPTS:-}
NOTE=${NOTE:-}
RESULTS=${RESULTS:-benchmarks/results}
filter=${1:-}

say() { printf '[jmh] %s\n' "$*" >&2; }
command -v java >/dev/null || { say "error: java is not on the PATH"; exit 1; }
command -v python3 >/dev/null || { say "error: python3 is needed for the report table"; exit 1; }

say "building benchmarks/target/benchmarks.jar (./mvnw package, tests skipped)"
log=$(mktemp /tmp/shardgate-jmh-build.XXXXXX)
./mvnw -q -B -ntp -pl benchmarks -am package -DskipTests -Dspotless.check.skip=true >"$log" 2>&1 \
  || { tail -n 40 "$log" >&2; say "error: build failed (log above)"; exit 1; }
rm -f "$log"

stamp=$(date -u +%Y-%m-%d-%H%M)
started=$(date -u '+%Y-%m-%d %H:%M')
mkdir -p "$RESULTS"
json="$RESULTS/jmh-$stamp.json"
report="$RESULTS/jmh-$stamp.md"
# shellcheck disable=SC2206 # JMH_OPTS is a list of options
jmh_args=(${filter:+"$filter"} -f "$FORKS" -wi "$WARMUP" -w "$TIME" -i "$ITERATIONS" -r "$TIME" -prof gc $JMH_OPTS
  -rf json -rff "$json")
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
say "java -jar benchmarks/target/benchmarks.jar ${jmh_args[*]}"
java -jar benchmarks/target/benchmarks.jar "${jmh_args[@]}"
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
{
  echo "# JMH: ${filter:-every benchmark}"
  echo
  [ -z "$NOTE" ] || { echo "> **$NOTE**"; echo; }
  echo "- date (UTC): $started; commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- command: \`FORKS=$FORKS WARMUP=$WARMUP ITERATIONS=$ITERATIONS TIME=$TIME${JMH_OPTS:+ JMH_OPTS='$JMH_OPTS'} benchmarks/jmh/run.sh${filter:+ '$filter'}\`"
  echo "  (runs \`java -jar benchmarks/target/benchmarks.jar ${jmh_args[*]}\`)"
  echo "- table: \`python3 benchmarks/jmh/report.py $json\`"
  echo "- machine: $(nproc) CPUs ($cpu_model), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM, $(uname -sr)"
  echo "- load average before: $load_start; after: $load_end (other work on the machine skews results)"
  echo "- JDK: $(java -version 2>&1 | head -n 1) ($(java -version 2>&1 | sed -n 3p))"
  echo "- each class's baseline (\`baseline*\`) ran in the same run; its Javadoc says what it is."
  echo "  MultiShardMergeBenchmark's unit is rows/s (ops/s, one op = one shard row) and its alloc is per row"
  echo
  python3 benchmarks/jmh/report.py "$json"
} >"$report"
say "wrote $json and $report"
cat "$report"
