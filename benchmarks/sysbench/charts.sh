#!/usr/bin/env bash
# PNG charts (gnuplot) for the sysbench scenarios' CSVs in benchmarks/results/; each scenario script
# calls it at the end of its run, and it re-draws the charts of any earlier CSV:
#
#   benchmarks/sysbench/charts.sh benchmarks/results/*.csv          # every result, charts next to each
#   benchmarks/sysbench/charts.sh --link benchmarks/results/proxy-overhead-2026-11-24-0908.csv
#
# The kind of chart follows the file name:
#   proxy-overhead-*.csv      qps, p95 latency and the ratios against direct, by client threads, one
#                             line per target (direct, HAProxy, Shardgate...): NAME.png
#   scaling-*.csv             connection scaling: qps, p95, errors and the backend connections MariaDB
#                             saw (Max_used_connections, when the CSV has it), by client threads:
#                             NAME.png (the -rateR- files are the rate-capped pass)
#   cache-on-off-*.csv        tps and p95 with the cache off and on, per sysbench test and threads,
#                             with the on/off ratio over the bars: NAME.png
#   scale-out*.csv            speedup against the first K (Shardgate, the ideal, linear), tps per K, and
#                             the buffer pool hit rate and disk reads per K from NAME-shards.csv:
#                             NAME-speedup.png, NAME-throughput.png, NAME-hit-rate.png
# --link appends the image links to NAME.md when it does not have them yet (for results written
# before their script drew charts). Needs gnuplot (Debian: gnuplot-nox).
set -euo pipefail

link=0
if [ "${1:-}" = --link ]; then
  link=1
  shift
fi
[ $# -gt 0 ] || { echo "usage: $0 [--link] RESULT.csv..." >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "[charts] error: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/shardgate-charts.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

terminal() { # width height
  if gnuplot -e "set terminal pngcairo" >/dev/null 2>&1; then
    echo "pngcairo noenhanced size $1,$2 font ',10'"
  else
    echo "png noenhanced size $1,$2"
  fi
}

column_of() { # csv name -> 1-based column number of the header name, or empty
  head -n 1 "$1" | tr ',' '\n' | awk -v n="$2" '$0 == n {print NR; exit}'
}

# one data file per value of column 1 (the target): "threads qps p95 errors backend qps/direct p95/direct",
# "?" for what a run did not record; prints the targets in CSV order
split_by_target() { # csv
  local backend
  backend=$(column_of "$1" backend_max_used_connections)
  awk -F, -v dir="$tmp" -v bcol="${backend:-0}" '
    NR == 1 {next}
    {
      t = $1; if (!(t in seen)) {seen[t] = 1; order[++n] = t}
      row[NR] = $0
      if (t == "direct") {dq[$2] = $5; dp[$2] = $6}
    }
    END {
      for (i = 2; i <= NR; i++) {
        split(row[i], f, ",")
        q = f[5] == "" ? "?" : f[5]; p = f[6] == "" ? "?" : f[6]
        b = (bcol > 0 && f[bcol] != "") ? f[bcol] : "?"
        qr = (f[5] != "" && dq[f[2]] > 0) ? f[5] / dq[f[2]] : "?"
        pr = (f[6] != "" && dp[f[2]] > 0) ? f[6] / dp[f[2]] : "?"
        print f[2], q, p, f[9] + 0, b, qr, pr > (dir "/" f[1] ".dat")
      }
      for (i = 1; i <= n; i++) print order[i]
    }' "$1"
}

color_of() { # target -> its colour, the same in every chart
  case "$1" in
    direct) echo "#7570b3" ;;
    haproxy) echo "#1b9e77" ;;
    shardgate) echo "#d95f02" ;;
    shardgate-sharded) echo "#e7298a" ;;
    shardgate-baseline) echo "#a6761d" ;;
    *) echo "#666666" ;;
  esac
}

plot_lines() { # column targets... -> a gnuplot plot clause, one line per target
  local col=$1 clause="" t
  shift
  for t in "$@"; do
    clause+="${clause:+, }\"$tmp/$t.dat\" using 1:$col with linespoints lw 2 pt 7 lc rgb \"$(color_of "$t")\" title \"$t\""
  done
  echo "$clause"
}

title_of() { # md file -> its first heading, without "# "
  [ -f "$1" ] && sed -n '1s/^# //p' "$1" || true
}

proxy_overhead() { # csv png
  local targets proxies=() t
  mapfile -t targets < <(split_by_target "$1")
  for t in "${targets[@]}"; do [ "$t" = direct ] || proxies+=("$t"); done
  local title
  title=$(title_of "${1%.csv}.md")
  gnuplot <<EOF
set terminal $(terminal 1500 500)
set output "$2"
set datafile missing "?"
set multiplot layout 1,3 title "${title:-$(basename "$1" .csv)}"
set logscale x 2
set xlabel "client threads"
set grid
set key top left
set yrange [0:*]
set title "throughput"
set ylabel "queries/s"
plot $(plot_lines 2 "${targets[@]}")
set title "p95 latency"
set ylabel "ms (log scale)"
set logscale y
set yrange [*:*]
plot $(plot_lines 3 "${targets[@]}")
unset logscale y
set title "against direct at the same threads"
set ylabel "ratio (qps: solid, p95: dashed)"
set yrange [0:*]
$(if [ ${#proxies[@]} -gt 0 ] && [ -f "$tmp/direct.dat" ]; then
    clause=""
    for t in "${proxies[@]}"; do
      clause+="${clause:+, }\"$tmp/$t.dat\" using 1:6 with linespoints lw 2 pt 7 lc rgb \"$(color_of "$t")\" title \"$t qps\""
      clause+=", \"$tmp/$t.dat\" using 1:7 with linespoints lw 2 pt 6 dt 2 lc rgb \"$(color_of "$t")\" title \"$t p95\""
    done
    echo "plot 1 with lines lc rgb 'gray50' dt 3 notitle, $clause"
  else
    echo "set label 'no direct run to compare with' at graph 0.3, 0.5"
    echo "unset logscale; set xrange [0:1]; set yrange [0:1]; plot -1 notitle"
  fi)
unset multiplot
EOF
}

connection_scaling() { # csv png
  local targets title backend
  mapfile -t targets < <(split_by_target "$1")
  title=$(title_of "${1%.csv}.md")
  backend=$(column_of "$1" backend_max_used_connections)
  gnuplot <<EOF
set terminal $(terminal 1200 900)
set output "$2"
set datafile missing "?"
set multiplot layout 2,2 title "${title:-$(basename "$1" .csv)}"
set logscale x 2
set xlabel "client threads"
set grid
set key top left
set title "throughput"
set ylabel "queries/s"
set yrange [0:*]
plot $(plot_lines 2 "${targets[@]}")
set title "p95 latency"
set ylabel "ms (log scale)"
set logscale y
set yrange [*:*]
plot $(plot_lines 3 "${targets[@]}")
unset logscale y
set title "errors (sysbench ignored errors + FATAL lines)"
set ylabel "errors"
set yrange [0:*]
plot $(plot_lines 4 "${targets[@]}")
set title "backend connections (MariaDB Max_used_connections over the run)"
set ylabel "connections (log scale)"
set logscale y
set yrange [1:*]
$(if [ -n "$backend" ]; then
    echo "plot $(plot_lines 5 "${targets[@]}")"
  else
    echo "set label 'not recorded by this run' at graph 0.35, 0.5"
    echo "unset logscale; set xrange [0:1]; set yrange [0:1]; plot -1 notitle"
  fi)
unset multiplot
EOF
}

cache_on_off() { # csv png
  local scenarios title s panels=""
  title=$(title_of "${1%.csv}.md")
  # per scenario: "threads off_tps on_tps off_p95 on_p95 tps_ratio p95_ratio"
  mapfile -t scenarios < <(awk -F, -v dir="$tmp" 'NR > 1 {
      if (!($1 in seen)) {seen[$1] = 1; order[++n] = $1}
      if (!(($1, $3) in th)) {th[$1, $3] = 1; threads[$1] = threads[$1] " " $3}
      tps[$1, $2, $3] = $5; p95[$1, $2, $3] = $7
    }
    END {
      for (i = 1; i <= n; i++) {
        s = order[i]; m = split(threads[s], t, " ")
        for (j = 1; j <= m; j++) {
          off = tps[s, "cache-off", t[j]]; on = tps[s, "cache-on", t[j]]
          po = p95[s, "cache-off", t[j]]; pn = p95[s, "cache-on", t[j]]
          printf "%s %s %s %s %s %s %s\n", t[j], (off == "" ? "?" : off), (on == "" ? "?" : on),
            (po == "" ? "?" : po), (pn == "" ? "?" : pn), (off > 0 ? sprintf("%.2fx", on / off) : "?"),
            (po > 0 ? sprintf("%.2fx", pn / po) : "?") > (dir "/" s ".dat")
        }
        print s
      }
    }' "$1")
  for s in "${scenarios[@]}"; do
    panels+="set title \"$s: throughput (label: on/off)\"
set ylabel \"transactions/s\"
plot \"$tmp/$s.dat\" using 2:xtic(1) title \"cache off\" lc rgb '#7570b3', '' using 3 title \"cache on\" lc rgb '#1b9e77', '' using 0:(\$3 > \$2 ? \$3 : \$2):6 with labels offset 0,1 notitle
set title \"$s: p95 latency (label: on/off)\"
set ylabel \"ms\"
plot \"$tmp/$s.dat\" using 4:xtic(1) title \"cache off\" lc rgb '#7570b3', '' using 5 title \"cache on\" lc rgb '#1b9e77', '' using 0:(\$5 > \$4 ? \$5 : \$4):7 with labels offset 0,1 notitle
"
  done
  gnuplot <<EOF
set terminal $(terminal 1200 $((420 * ${#scenarios[@]})))
set output "$2"
set datafile missing "?"
set multiplot layout ${#scenarios[@]},2 title "${title:-$(basename "$1" .csv)}"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xlabel "client threads"
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set grid ytics
set key top left
$panels
unset multiplot
EOF
}

scale_out() { # csv speedup.png throughput.png hit-rate.png
  local summary="$tmp/summary.dat" shards="${1%.csv}-shards.csv" k0 scale="set yrange [0:*]" note="" setup
  # one line per K: k sg_tps sg_speedup ideal_tps ideal_speedup sg/ideal linear
  awk -F, 'NR > 1 {tps[$1, $2] = $5; if (!($2 in seen)) {seen[$2] = 1; order[++n] = $2}}
    END {
      base = order[1]
      for (i = 1; i <= n; i++) {
        k = order[i]; s = tps["shardgate", k]; d = tps["ideal", k]
        printf "%s %s %s %s %s %s %s\n", k, s, (tps["shardgate", base] > 0 ? s / tps["shardgate", base] : 0),
          d, (tps["ideal", base] > 0 ? d / tps["ideal", base] : 0), (d > 0 ? s / d : 0), k / base
      }
    }' "$1" >"$summary"
  k0=$(awk 'NR == 1 {print $1}' "$summary")
  # speedups far above linear (tens, hundreds) squash the linear line: a log axis then
  if awk '$3 > 10 || $5 > 10 {big = 1} END {exit !big}' "$summary"; then
    scale="set logscale y; set yrange [0.5:*]"
    note=" (log scale)"
  fi
  # the run's settings, from the report's command line when there is one
  setup=$(sed -n 's/^- command: `\(.*\) benchmarks\/sysbench\/scale-out.sh`$/\1/p' "${1%.csv}.md" 2>/dev/null | head -n 1)
  if [ -n "$setup" ]; then
    setup=$(awk '{for (i = 1; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]}}
      END {printf "%s tables x %s rows, buffer pool %s per shard, read cap %s IOs/s per shard, %s client threads",
           v["TABLES"], v["TABLE_SIZE"], v["BUFFER_POOL"], v["IOPS"], v["THREADS"]}' <<<"$setup")
  fi
  gnuplot <<EOF
set terminal $(terminal 900 600)
set output "$2"
set title "Scale-out: sysbench oltp_read_only through Shardgate over K shards, and the ideal\n$setup"
set xlabel "shards (K)"
set ylabel "throughput / throughput at K=$k0$note"
set key top left
set grid
set xtics 1
$scale
plot "$summary" using 1:7 with lines dashtype 2 lw 2 lc rgb "gray40" title "linear", \
     "$summary" using 1:5 with linespoints pt 6 lw 2 lc rgb "#1b9e77" title "ideal: K sysbench straight to their shards", \
     "$summary" using 1:3 with linespoints pt 7 lw 2 lc rgb "#d95f02" title "through Shardgate", \
     "$summary" using 1:3:(sprintf("%.1fx", \$3)) with labels offset 0,1 notitle
set output "$3"
set title "Transactions per second by shard count"
set ylabel "tps$note"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
unset xtics
set xtics
plot "$summary" using 4:xtic(1) lc rgb "#1b9e77" title "ideal", \
     "$summary" using 2:xtic(1) lc rgb "#d95f02" title "through Shardgate"
EOF
  [ -f "$shards" ] || return 0
  # per K, the Shardgate run: mean hit rate over the shards and disk reads/s per shard (mean)
  awk -F, 'NR > 1 && $1 == "shardgate" && $9 != "" {
      if (!($2 in seen)) {seen[$2] = 1; order[++n] = $2}
      hit[$2] += $9; reads[$2] += $10; count[$2]++
    }
    END {for (i = 1; i <= n; i++) {k = order[i]; printf "%s %.2f %.0f\n", k, 100 * hit[k] / count[k], reads[k] / count[k]}}' \
    "$shards" >"$tmp/hits.dat"
  [ -s "$tmp/hits.dat" ] || return 0
  gnuplot <<EOF
set terminal $(terminal 900 600)
set output "$4"
set title "Why: each shard's buffer pool hit rate and disk reads (Shardgate run, mean over the shards)"
set xlabel "shards (K)"
set xtics 1
set grid
set key bottom right
set ylabel "buffer pool hit rate %"
set yrange [*:100]
set y2label "disk reads/s per shard"
set y2range [0:*]
set y2tics
set ytics nomirror
plot "$tmp/hits.dat" using 1:2 with linespoints lw 2 pt 7 lc rgb "#d95f02" title "hit rate (1 - reads / read requests)", \
     "$tmp/hits.dat" using 1:3 axes x1y2 with linespoints lw 2 pt 6 dt 2 lc rgb "#7570b3" title "Innodb_buffer_pool_reads per second"
EOF
}

add_links() { # md images...: appends links to the images the report does not mention yet
  local md=$1 img missing=()
  shift
  [ "$link" -eq 1 ] && [ -f "$md" ] || return 0
  for img in "$@"; do grep -qF "($(basename "$img"))" "$md" || missing+=("$img"); done
  [ ${#missing[@]} -gt 0 ] || return 0
  {
    echo
    echo "Charts, drawn from the CSV by \`benchmarks/sysbench/charts.sh\`:"
    echo
    for img in "${missing[@]}"; do printf '![%s](%s) ' "$(basename "$img" .png)" "$(basename "$img")"; done
    echo
  } >>"$md"
}

for csv in "$@"; do
  base=${csv%.csv}
  name=$(basename "$csv")
  rm -f "$tmp"/*.dat
  case "$name" in
    *-shards.csv) continue ;;
    proxy-overhead-*) proxy_overhead "$csv" "$base.png" && add_links "$base.md" "$base.png" ;;
    scaling-*) connection_scaling "$csv" "$base.png" && add_links "$base.md" "$base.png" ;;
    cache-on-off-*) cache_on_off "$csv" "$base.png" && add_links "$base.md" "$base.png" ;;
    scale-out*)
      scale_out "$csv" "$base-speedup.png" "$base-throughput.png" "$base-hit-rate.png"
      imgs=("$base-speedup.png" "$base-throughput.png")
      [ ! -f "$base-hit-rate.png" ] || imgs+=("$base-hit-rate.png")
      add_links "$base.md" "${imgs[@]}"
      ;;
    *) echo "[charts] $csv: not a scenario result this script knows; skipped" >&2; continue ;;
  esac
  echo "[charts] $csv: charts written next to it" >&2
done
