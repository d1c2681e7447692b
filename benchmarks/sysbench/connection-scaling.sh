#!/usr/bin/env bash
# Connection scaling (issue #9): sysbench oltp_read_only at 2, 16, 64, 256, 1024 and 4096 client
# threads, once uncapped and once rate-capped (--rate), directly against MariaDB, through HAProxy
# (if installed; L4, cannot multiplex) and through Shardgate (multiplexing, pool of at most POOL
# backend connections). Each run records throughput, p95 latency, errors, the proxy's CPU per
# query and RSS, and the backend connections actually used (MariaDB Max_used_connections, reset by
# FLUSH STATUS before each run; needs the mariadb CLI). Two CSV + markdown reports + PNG charts
# (throughput, p95, errors and backend connections by client threads) land in benchmarks/results/
# (scaling-oltp_read_only-<stamp>.* uncapped, scaling-oltp_read_only-rate<R>-<stamp>.* capped).
#
# The real run (on a quiet machine; 2 passes x 6 thread counts x 3 targets x 30 s, ~22 min):
#   benchmarks/sysbench/connection-scaling.sh
# Smoke run (~3 min, checks the plumbing only; numbers are meaningless):
#   THREADS="2 16" DURATION=3 WARMUP=1 RATE=200 TABLE_SIZE=1000 RESULTS=/tmp/smoke benchmarks/sysbench/connection-scaling.sh
#
# Settings (environment), on top of proxy-overhead.sh's:
#   THREADS   2 16 64 256 1024 4096
#   DURATION  30        seconds per run
#   RATE      1000      transactions/s of the capped pass ("" or 0: skip the capped pass); 1000 x 14
#                       statements is about half of what a proxy sustains on a 2-core machine
#   POOL      200       the router's backend connections per server (the target: <= 200 used)
#   TARGETS   direct haproxy shardgate
#   SYSBENCH_OPTS --skip_trx=on   (read-only statements outside BEGIN/COMMIT, so multiplexing
#                                  applies per statement; set "" to measure with transactions,
#                                  which pin a backend connection for each transaction)
#
# 4096 client threads need file descriptors: this script raises `ulimit -n` to the hard limit (at
# least 20000 needed: sysbench 4096, HAProxy 2 per connection, the router 2 per client at most);
# MariaDB is started with max_connections 5000 and open_files_limit to match, so the direct runs
# are limited by MariaDB itself, not by the setup.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

export THREADS=${THREADS:-2 16 64 256 1024 4096}
export DURATION=${DURATION:-30}
export WARMUP=${WARMUP:-5}
export POOL=${POOL:-200}
export TARGETS=${TARGETS:-direct haproxy shardgate}
export SCENARIOS=oltp_read_only
export NAME=scaling-oltp_read_only
export SYSBENCH_OPTS=${SYSBENCH_OPTS---skip_trx=on}
export DB_MAX_CONNECTIONS=${DB_MAX_CONNECTIONS:-5000}
rate=${RATE-1000}

hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -ge 65536 ]; then
  ulimit -n 65536
else
  ulimit -n "$hard"
fi
if [ "$(ulimit -n)" -lt 20000 ]; then
  echo "[bench] warning: ulimit -n is $(ulimit -n); 4096 client threads need about 20000 (raise the hard limit)" >&2
fi

echo "[bench] pass 1: uncapped" >&2
RATE="" "$here/proxy-overhead.sh"
if [ -n "$rate" ] && [ "$rate" != 0 ]; then
  echo "[bench] pass 2: --rate=$rate" >&2
  RATE="$rate" "$here/proxy-overhead.sh"
fi
