#!/usr/bin/env python3
"""Checks for scripts/gpu-check (needs a GPU). Subcommands:

  probe TRACE PROBE_JSON [PTX_FILE]  kernel counts under the right bricks,
                                     CUPTI active, PTX hash of PTX_FILE present
  attributed TRACE                   every kernel has a brick/scope parent
  captured TRACE LAYER               a cuda-profiler-api trace: one window,
                                     only LAYER, the rest counted outside
  ncu TRACE NCU_CSV [TOL]            per-kernel median durations vs ncu
  overhead BASE_OUT AGENT_OUT MAX_NS ns added per empty-kernel launch
                                     (medians of the runs, one JSON line each)
Exit 0 = pass, 1 = fail (reason on stdout)."""
import csv
import json
import statistics
import sys


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def load(path):
    with open(path) as f:
        return json.load(f)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def kernels(trace):
    return [n for n in trace["nodes"] if n["kind"] == "kernel"]


def parent_chain(trace, node):
    by_id = {n["id"]: n for n in trace["nodes"]}
    names = []
    p = node.get("parent")
    while p is not None:
        names.append(by_id[p]["name"])
        p = by_id[p].get("parent")
    return list(reversed(names))


def short(name):
    return name.split("(")[0].split("<")[0].split("::")[-1].replace("void ", "")


def cmd_probe(trace_path, probe_path, ptx_file=None):
    t = load(trace_path)
    probe = json.loads(open(probe_path).read().strip().splitlines()[-1])
    d = t["diagnostics"]
    if not d["cupti"].startswith("active"):
        fail("cupti not active: " + d["cupti"])
    want_brick = {"probe_norm": "RmsNorm", "probe_gate": "GateProjection"}
    for kname, count in probe["kernels"].items():
        ks = [k for k in kernels(t) if short(k["name"]) == kname]
        if len(ks) != count:
            fail(f"{kname}: {len(ks)} kernel nodes, {count} launches")
        for k in ks:
            chain = parent_chain(t, k)
            if not chain or chain[-1] != want_brick[kname] or not chain[0].startswith("Layer"):
                fail(f"{kname} under {chain}, want Layer n/{want_brick[kname]}")
            if k["end_ns"] <= k["start_ns"]:
                fail(f"{kname} has no duration")
    transfers = [n for n in t["nodes"] if n["kind"] == "transfer"]
    dirs = sorted(n.get("direction") for n in transfers)
    if "H2D" not in dirs or "D2H" not in dirs:
        fail(f"transfers {dirs}, want H2D and D2H")
    if not t.get("devices") or not t["devices"][0].get("peak_gflops"):
        fail("no device peaks")
    if ptx_file:
        with open(ptx_file, "rb") as f:
            want = fnv1a64(f.read().rstrip(b"\0"))
        hashes = {int(m["hash"], 16) if isinstance(m["hash"], str) else m["hash"] for m in t["ptx"]}
        if want not in hashes:
            fail(f"PTX hash {want:#018x} of {ptx_file} not in ptx[] ({len(hashes)} modules)")
    print(f"ok: {sum(probe['kernels'].values())} kernels attributed; drops "
          f"{d['dropped_activity_records']}, zero-ts {d.get('zero_timestamp_records', 0)}")


def cmd_attributed(trace_path):
    t = load(trace_path)
    ks = kernels(t)
    if not ks:
        fail("no kernels in trace; cupti: " + t["diagnostics"]["cupti"])
    orphans = [k for k in ks if k.get("parent") is None]
    kind = {n["id"]: n["kind"] for n in t["nodes"]}
    under_brick = [k for k in ks if kind.get(k.get("parent")) == "brick"]
    print(f"{len(ks)} kernels, {len(under_brick)} directly under a brick, {len(orphans)} orphans")
    if orphans:
        fail(f"{len(orphans)} kernels without a launching scope, e.g. {orphans[0]['name']}")
    print("ok")


def cmd_captured(trace_path, layer):
    """A cuda-profiler-api trace: one window, its kernels all under `layer`,
    and the work outside it left out and counted."""
    t = load(trace_path)
    d = t["diagnostics"]
    print("capture:", d["capture"], "| outside:", d["records_outside_capture"])
    if not d["capture"].startswith("cuda-profiler-api: 1 window"):
        fail("expected one capture window: " + d["capture"])
    if d["records_outside_capture"] == 0:
        fail("the warm-up and the work after the window should be left out")
    layers = {n["name"] for n in t["nodes"] if n["kind"] == "layer"}
    if layers != {layer}:
        fail(f"layers in the trace: {sorted(layers)}, expected only {layer}")
    cmd_attributed(trace_path)


def cmd_ncu(trace_path, csv_path, tol="0.05"):
    t = load(trace_path)
    ours = {}
    for k in kernels(t):
        ours.setdefault(short(k["name"]), []).append(k["end_ns"] - k["start_ns"])
    theirs = {}
    with open(csv_path) as f:
        rows = [r for r in csv.reader(f) if r]
    header = next(i for i, r in enumerate(rows) if "Metric Name" in r)
    cols = rows[header]
    for r in rows[header + 1:]:
        rec = dict(zip(cols, r))
        if rec.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(rec["Metric Value"].replace(",", ""))
        unit = rec.get("Metric Unit", "nsecond")
        scale = {"nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9}.get(unit, 1)
        theirs.setdefault(short(rec["Kernel Name"]), []).append(value * scale)
    bad = []
    for name, durs in theirs.items():
        if name not in ours:
            bad.append(f"{name}: in ncu, not in trace")
            continue
        if len(ours[name]) != len(durs):
            bad.append(f"{name}: {len(ours[name])} in trace vs {len(durs)} in ncu")
        a, b = statistics.median(ours[name]), statistics.median(durs)
        if b > 2000 and abs(a - b) / b > float(tol):  # sub-2us kernels: launch noise
            bad.append(f"{name}: median {a:.0f} ns vs ncu {b:.0f} ns")
        print(f"{name}: trace median {a:.0f} ns, ncu {b:.0f} ns, n={len(durs)}")
    if bad:
        fail("; ".join(bad))
    print("ok")


def launch_times(path):
    return [json.loads(line)["ns_per_launch"] for line in open(path) if line.startswith("{")]


def cmd_overhead(base, agent, max_added_ns):
    bs, ats = launch_times(base), launch_times(agent)
    b, a = statistics.median(bs), statistics.median(ats)
    print(f"empty-kernel launch, ns: without agent {bs}, with {ats}")
    print(f"median {b:.0f} ns without, {a:.0f} ns with the agent: "
          f"{a - b:+.0f} ns per launch (x{a / b:.2f}; goal <= {max_added_ns} ns added)")
    if a - b > float(max_added_ns):
        fail(f"{a - b:.0f} ns added per launch > {max_added_ns}")
    print("ok")


if __name__ == "__main__":
    cmds = {"probe": cmd_probe, "attributed": cmd_attributed, "ncu": cmd_ncu,
            "overhead": cmd_overhead, "captured": cmd_captured}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        print(__doc__)
        sys.exit(2)
    cmds[sys.argv[1]](*sys.argv[2:])
