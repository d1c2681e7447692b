#!/usr/bin/env bash
# Fleet scale (issue 22): many routers on one three-member ZooKeeper ensemble with 1,000 hostgroups
# and 10,000 tables; measures the stored configuration, start-up, heap, plan cache, rule change
# propagation, ZooKeeper traffic and the backend connections per shard. Writes
# benchmarks/results/fleet-scale-STAMP.md. Runs io.shardgate.it.scale.FleetScale (it's test
# sources; not a JUnit test, so ./mvnw verify never starts it). ~5-8 min on 2 cores.
#
# Settings (environment, passed on as -Dfleet.NAME): ROUTERS=20 HOSTGROUPS=1000 TABLES=10000
# SERVERS=2 POOL=4 CLIENTS=8 CHANGES=30 STEPS=1,5,10,20 HEAP=4g; smoke run:
#   ROUTERS=3 HOSTGROUPS=20 TABLES=200 CHANGES=3 STEPS=1,3 benchmarks/fleet/fleet-scale.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
stamp="$(date -u +%Y-%m-%d-%H%M)"
out="${OUT:-$root/benchmarks/results/fleet-scale-$stamp.md}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "building router-core and it (./mvnw -o package, tests skipped) ..."
# one reactor build: the classpath names the modules' fresh jars (no mvn install)
nice ./mvnw -o -q -B -ntp -pl it -am package dependency:build-classpath -DskipTests \
  -Dspotless.check.skip=true -Dmdep.outputFile="$work/it.classpath" >"$work/build.log" 2>&1 \
  || { cat "$work/build.log"; exit 1; }
cp="$root/it/target/test-classes:$root/it/target/classes:$(cat "$work/it.classpath")"

props=()
for pair in ROUTERS:routers HOSTGROUPS:hostgroups TABLES:tables SERVERS:servers POOL:pool \
            CLIENTS:clients CHANGES:changes STEPS:steps STEP_SECONDS:stepSeconds PLANS:plans; do
  var="${pair%%:*}"; name="${pair#*:}"
  if [ -n "${!var:-}" ]; then props+=("-Dfleet.$name=${!var}"); fi
done
command="benchmarks/fleet/fleet-scale.sh"
for pair in ROUTERS HOSTGROUPS TABLES SERVERS POOL CLIENTS CHANGES STEPS STEP_SECONDS PLANS HEAP; do
  if [ -n "${!pair:-}" ]; then command="$pair=${!pair} $command"; fi
done

nice java -Xmx"${HEAP:-4g}" \
  -Dfleet.out="$out" -Dfleet.commit="$(git rev-parse --short HEAD)" -Dfleet.command="$command" \
  "${props[@]}" -cp "$cp" io.shardgate.it.scale.FleetScale >"$work/run.log" 2>&1 \
  || { tail -n 80 "$work/run.log"; exit 1; }
mkdir -p "$root/it/target" && cp "$work/run.log" "$root/it/target/fleet-scale.log"
if grep -q "LEAK:" "$work/run.log"; then echo "Netty reported LEAK: see it/target/fleet-scale.log"; fi
echo "report: $out"
