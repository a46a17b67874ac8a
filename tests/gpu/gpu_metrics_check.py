#!/usr/bin/env python3
"""GPU metrics (BRICKPROF_GPU_METRICS) against Nsight Compute on the same kernels.

usage: gpu_metrics_check.py TRACE.json NCU.csv [TOLERANCE]

TRACE is a brickprof trace recorded with BRICKPROF_GPU_METRICS=... and
BRICKPROF_GPU_METRICS_EVERY=1 (every kernel profiled); NCU.csv is
`ncu --csv --metrics <the same> ...` of the same program and arguments. The
kernels are matched in launch order (the trace's by correlation id, ncu's
by its ID column) and must have the same names; each metric the trace has
must be within TOLERANCE (default 0.05) of ncu's, relative, or within 5
points for a percentage below 10 (a small share's relative error says
little). Prints the table; exit 1 on a mismatch.
"""
import csv
import json
import sys


def trace_kernels(path):
    t = json.load(open(path))
    g = t.get("gpu_metrics")
    if not g:
        sys.exit("no gpu_metrics in %s: %s" % (path, t["diagnostics"].get("gpu_metrics")))
    nodes = {n["id"]: n for n in t["nodes"]}
    rows = []
    for e in g["nodes"]:
        n = nodes[e["node"]]
        rows.append((n.get("correlation", 0), n.get("mangled") or n["name"], n["name"],
                     dict(zip(g["metrics"], e["values"]))))
    rows.sort(key=lambda r: r[0])
    return t["diagnostics"].get("gpu_metrics"), rows


def ncu_kernels(path):
    text = open(path).read()
    start = text.find('"ID"')  # ncu prints its own lines before the table
    by_id = {}
    for row in csv.DictReader(text[start:].splitlines()):
        k = by_id.setdefault(int(row["ID"]), {"name": row["Kernel Name"], "values": {}})
        value = row["Metric Value"].replace(",", "")
        try:
            k["values"][row["Metric Name"]] = float(value)
        except ValueError:
            pass
    return [by_id[i] for i in sorted(by_id)]


def close(metric, ours, theirs, tolerance):
    if metric.endswith(".pct") or ".pct_" in metric:
        if max(abs(ours), abs(theirs)) < 10:
            return abs(ours - theirs) <= 5
    if theirs == 0:
        return ours == 0
    return abs(ours - theirs) / abs(theirs) <= tolerance


def main():
    trace, ncu_csv = sys.argv[1], sys.argv[2]
    tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 0.05
    status, ours = trace_kernels(trace)
    theirs = ncu_kernels(ncu_csv)
    print("brickprof:", status)
    print("kernels: brickprof %d, ncu %d" % (len(ours), len(theirs)))
    if not ours or len(ours) != len(theirs):
        print("different kernel counts: the runs did not launch the same kernels")
        return 1
    bad = 0
    metrics = [m for m in ours[0][3] if m in theirs[0]["values"]]
    print("%-4s %-40s %-52s %16s %16s %8s" % ("#", "kernel", "metric", "brickprof", "ncu", "diff"))
    for i, ((_, mangled, name, values), k) in enumerate(zip(ours, theirs)):
        if k["name"] not in (name, mangled) and not k["name"].startswith(name.split("(")[0]):
            print("%d: kernel %r here, %r in ncu" % (i, name, k["name"]))
            bad += 1
            continue
        for m in metrics:
            a, b = values[m], k["values"].get(m)
            if a is None or b is None:
                continue
            ok = close(m, a, b, tolerance)
            bad += not ok
            diff = (a - b) / b * 100 if b else 0.0
            print("%-4d %-40.40s %-52s %16.4g %16.4g %7.2f%% %s" %
                  (i, name, m, a, b, diff, "" if ok else "MISMATCH"))
    print("%d mismatches (tolerance %.0f%%)" % (bad, tolerance * 100))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
