#!/usr/bin/env python3
"""Turns a JMH JSON result (-rf json) into the markdown table of benchmarks/results/jmh-*.md:
one row per benchmark and parameter set with score, error, unit and, when the run used -prof gc,
the allocated bytes per operation (gc.alloc.rate.norm).

  python3 benchmarks/jmh/report.py benchmarks/results/jmh-2026-11-22-0835.json
"""
import json
import sys


def main(path):
    with open(path) as f:
        runs = json.load(f)
    print("| benchmark | params | score | error (99.9%) | unit | alloc B/op |")
    print("| --- | --- | ---: | ---: | --- | ---: |")
    for run in runs:
        name = run["benchmark"].rsplit(".", 2)
        label = name[-2] + "." + name[-1]
        params = ", ".join(f"{k}={v}" for k, v in sorted(run.get("params", {}).items())) or "-"
        primary = run["primaryMetric"]
        alloc = run.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        alloc_text = "-" if alloc is None else f"{alloc['score']:.0f}"
        print(f"| {label} | {params} | {fmt(primary['score'])} | ± {fmt(primary['scoreError'])} "
              f"| {primary['scoreUnit']} | {alloc_text} |")


def fmt(x):
    if isinstance(x, str):  # JMH writes "NaN" as a string
        x = float(x)
    if x != x:  # NaN: a single iteration has no error
        return "n/a"
    return f"{x:.3f}" if abs(x) < 10 else f"{x:.1f}" if abs(x) < 1000 else f"{x:.0f}"


if __name__ == "__main__":
    main(sys.argv[1])
