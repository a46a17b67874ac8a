#!/usr/bin/env python3
"""Checks for scripts/gpu-check (needs a GPU). Subcommands:

  probe TRACE PROBE_JSON [PTX_FILE]  kernel counts under the right bricks,
                                     CUPTI active, PTX hash of PTX_FILE present
  attributed TRACE                   every kernel has a brick/scope parent
  ranges TRACE LAYERS BRICKS         kernels launched inside a layer range are
                                     under it and directly under a brick, those
                                     launched outside every range at the root;
                                     each of LAYERS has kernels under each of
                                     BRICKS (comma-separated)
  whole-graphs TRACE                 BRICKPROF_CUDA_GRAPH_TRACE=graph: one
                                     "CUDA graph N" node per decode step, under
                                     it; no kernel of a replayed graph node
  captured TRACE LAYER               a cuda-profiler-api trace: one window,
                                     only LAYER, CUPTI's records off outside
  globaltimer TRACE PROBE_OUT         probe_timer kernels: the trace's duration
                                     of each vs the GPU's %globaltimer from its
                                     first block's start to its last block's
                                     end; fails past 0.5 us or 5% (the larger)
  python-frames TRACE SCRIPT         most kernels have a Python stack (PyTorch
                                     releases the GIL around some calls), each
                                     passes through SCRIPT, some through
                                     Block.forward
  ncu TRACE NCU_CSV [TOL [PROBE_OUT]] per-kernel median durations vs ncu (and
                                     the probe's own event timing, printed)
  overhead MAX_OWN GOAL NAME=OUT...  per ns_* field of launch_probe's JSON
                                     lines, one line per round in each OUT
                                     (rounds alternate the configurations):
                                     each one's median and step from the one
                                     before; per-round differences agent -
                                     none (against GOAL, reported) and agent
                                     - null-api, brickprof's own code (fails
                                     past MAX_OWN); "-": no limit, no goal
  memory TRACE OUT                   bricklayer's figures (OUT, its output)
                                     against its trace: program-level bytes
                                     per pool, and the driver-level bytes and
                                     count of its cuMemAllocs; every brick
                                     has its shapes
  first-screen BRICKPROF EMPTY BRICKLAYER
                                     what a first look says on a GPU machine:
                                     EMPTY (`brickprof run -- true`) recorded
                                     nothing and says the GPU ran nothing while
                                     CUPTI recorded; BRICKLAYER (a CUDA run)
                                     has the CUPTI line and a GPU column, the
                                     time outside every scope as the tree's
                                     last line, and peaks named for its GPU
Exit 0 = pass, 1 = fail (reason on stdout)."""
import csv
import json
import os
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


def ancestors(by_id, node):
    """The node's parent, its parent's parent, ... up to the root."""
    chain = []
    p = node.get("parent")
    while p is not None:
        chain.append(by_id[p])
        p = by_id[p].get("parent")
    return chain


def parent_chain(trace, node):
    by_id = {n["id"]: n for n in trace["nodes"]}
    return [n["name"] for n in reversed(ancestors(by_id, node))]


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


def cmd_ranges(trace_path, layer_names, brick_names):
    """An unmodified program's NVTX ranges: a kernel whose launch call lies
    inside a layer range of its thread sits under that layer and directly
    under a brick; one launched outside every range (set-up, a final
    reduction) sits at the root."""
    t = load(trace_path)
    by_id = {n["id"]: n for n in t["nodes"]}
    ranges = [n for n in t["nodes"] if n["kind"] in ("layer", "brick", "scope")]
    seen = set()  # (layer, brick) of each kernel under both
    outside = 0
    for k in kernels(t):
        if "graph_node" in k:
            continue  # a replay belongs to the range it was captured in
        name = k["name"][:80]
        if "api_start_ns" not in k:
            fail(f"kernel {name} has no launch call")
        chain = ancestors(by_id, k)
        within = [r for r in ranges if r["thread"] == k["thread"] and
                  r["start_ns"] <= k["api_start_ns"] and k["api_end_ns"] <= r["end_ns"]]
        if not within:
            if chain:
                fail(f"kernel {name} launched outside every range is under {chain[0]['name']}")
            outside += 1
        for layer in (r for r in within if r["kind"] == "layer"):
            if layer not in chain:
                fail(f"kernel {name} launched in {layer['name']} is not under it")
            if chain[0]["kind"] != "brick":
                fail(f"kernel {name} launched in {layer['name']} is under "
                     f"{chain[0]['kind']} {chain[0]['name']}, not a brick")
            seen.add((layer["name"], chain[0]["name"]))
    missing = [f"{layer}/{brick}" for layer in layer_names.split(",")
               for brick in brick_names.split(",") if (layer, brick) not in seen]
    if missing:
        fail("no kernels under " + ", ".join(missing))
    print(f"{len(kernels(t))} kernels, {len(seen)} layer/brick pairs with kernels; "
          f"{outside} kernels launched outside any range, at the root")
    print("ok")


def cmd_whole_graphs(trace_path):
    t = load(trace_path)
    by_id = {n["id"]: n for n in t["nodes"]}
    steps = [n for n in t["nodes"] if n["kind"] == "scope" and n["name"] == "decode token"]
    graphs = [k for k in kernels(t) if k["name"].startswith("CUDA graph ")]
    print("cupti:", t["diagnostics"]["cupti"])
    if "CUDA graphs traced whole" not in t["diagnostics"]["cupti"]:
        fail("graph-level tracing did not take effect")
    if any(k.get("graph_node") for k in kernels(t)):
        fail("kernels of replayed graph nodes in the trace")
    if len(graphs) != len(steps) or not graphs:
        fail(f"{len(graphs)} whole-graph nodes for {len(steps)} decode steps")
    if any(g.get("parent") is None or by_id[g["parent"]]["name"] != "decode token"
           for g in graphs):
        fail("a whole-graph node outside its decode step")
    durations = sorted(g["end_ns"] - g["start_ns"] for g in graphs)
    print(f"ok: {len(graphs)} replays, median {durations[len(durations) // 2] / 1e3:.1f} us on the GPU")


def cmd_captured(trace_path, layer):
    """A cuda-profiler-api trace: one window, its kernels all under `layer`,
    and the work outside it left out and counted."""
    t = load(trace_path)
    d = t["diagnostics"]
    off = d.get("activity_off", [])
    print("capture:", d["capture"], "| outside:", d["records_outside_capture"],
          "| CUPTI records off:", len(off), "times")
    if not d["capture"].startswith("cuda-profiler-api: 1 window"):
        fail("expected one capture window: " + d["capture"])
    # Before the window and after it, CUPTI's records are switched off.
    if len(off) != 2:
        fail(f"CUPTI's records off {len(off)} times, expected before and after the window")
    layers = {n["name"] for n in t["nodes"] if n["kind"] == "layer"}
    if layers != {layer}:
        fail(f"layers in the trace: {sorted(layers)}, expected only {layer}")
    cmd_attributed(trace_path)


def cmd_python_frames(trace_path, script_path):
    """Every GPU node launched from the script's thread has a stack through the
    script (PyTorch releases the GIL around its ops: read without it), and each
    "# launch-line: NAME" of the script is the innermost script line of at
    least one kernel, in Block.forward (its qualified name from 3.11)."""
    t = load(trace_path)
    frames, stacks = t.get("python_frames", []), t.get("python_stacks", [])
    if not stacks:
        fail("no python_stacks in the trace")
    script = os.path.basename(script_path)
    marked = {}
    with open(script_path) as f:
        for number, text in enumerate(f, 1):
            if "# launch-line: " in text:
                marked[number] = text.split("# launch-line: ")[1].strip()
    work = [n for n in t["nodes"] if n["kind"] in ("kernel", "transfer", "memset")]
    without = [n["name"] for n in work if "python_stack" not in n]
    print(f"{len(work) - len(without)} of {len(work)} GPU nodes have a Python stack; "
          f"without: {sorted(set(without))[:8]}")
    for w in t["diagnostics"].get("warnings", []):
        if "Python" in w:
            fail("warning: " + w)
    if without:
        fail(f"{len(without)} GPU nodes without a Python stack (the GIL is released around "
             "PyTorch's ops: every launch must have one)")
    lines = {}
    for n in work:
        stack = [frames[f] for f in stacks[n["python_stack"]]]
        mine = [f for f in stack if os.path.basename(f["file"]) == script]
        if not mine:
            fail(f"{n['name']}: stack does not pass through {script}: {stack[:3]}")
        key = (mine[0]["line"], mine[0]["function"])
        lines[key] = lines.get(key, 0) + 1
    print(f"{len(stacks)} stacks, {len(frames)} frames; GPU nodes by the script's innermost "
          f"line: { {f'{l} {fn}': c for (l, fn), c in sorted(lines.items())} }")
    for number, name in sorted(marked.items()):
        found = [fn for (l, fn) in lines if l == number]
        if not found:
            fail(f"no kernel under {script}:{number} ({name})")
        if not all(fn in ("Block.forward", "forward") for fn in found):
            fail(f"{script}:{number} is not in Block.forward: {found}")
    print("ok")


def cmd_ncu(trace_path, csv_path, tol="0.05", probe_path=None):
    t = load(trace_path)
    if probe_path:  # the probe's own CUDA-event timing of the same launches
        probe = json.loads(open(probe_path).read().strip().splitlines()[-1])
        print(f"probe_norm: CUDA events around each launch in the traced run, median "
              f"{probe['probe_norm_event_ns']:.0f} ns")
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


def cmd_globaltimer(trace_path, probe_path):
    t = load(trace_path)
    probe = json.loads(open(probe_path).read().strip().splitlines()[-1])
    stamps = probe["stamps_ns"]
    ks = sorted((k for k in kernels(t) if short(k["name"]) == "probe_timer"),
                key=lambda k: k["start_ns"])
    if len(ks) != len(stamps):
        fail(f"{len(ks)} probe_timer kernels in the trace, {len(stamps)} launched")
    ours = [k["end_ns"] - k["start_ns"] for k in ks]
    timer = [end - start for start, end in stamps]
    diffs = [a - b for a, b in zip(ours, timer)]
    # The gaps between consecutive starts, on each clock: a start placed
    # late or early by a varying amount shows here even when durations agree.
    start_drift = [(ks[i]["start_ns"] - ks[i - 1]["start_ns"]) - (stamps[i][0] - stamps[i - 1][0])
                   for i in range(1, len(ks))]
    med_timer = statistics.median(timer)
    med_diff = statistics.median(diffs)
    limit = max(500.0, 0.05 * med_timer)
    print(f"probe_timer x{len(ks)} ({probe['blocks']} blocks, {probe['iters']} iterations): "
          f"%globaltimer median {med_timer:.0f} ns, trace median {statistics.median(ours):.0f} ns; "
          f"trace - timer: median {med_diff:+.0f} ns, min {min(diffs):+.0f}, max {max(diffs):+.0f}")
    if start_drift:
        print(f"start-to-start, trace - timer: median {statistics.median(start_drift):+.0f} ns, "
              f"spread {max(start_drift) - min(start_drift):.0f} ns")
    if abs(med_diff) > limit:
        fail(f"the trace's kernel durations differ from the GPU's own timer by {med_diff:+.0f} ns "
             f"(limit {limit:.0f} ns)")
    print("ok")


def paired(a, b):
    """Median of the per-round differences a[i] - b[i]: configurations run
    in turn within a round, so drift between rounds cancels."""
    return statistics.median(x - y for x, y in zip(a, b))


def cmd_overhead(max_own_ns, goal_ns, *configs):
    runs = {}  # configuration -> the JSON line of each of its runs
    for arg in configs:
        name, path = arg.split("=", 1)
        runs[name] = [json.loads(line) for line in open(path) if line.startswith("{")]
        if not runs[name]:
            fail(f"no runs in {path}")
    names = list(runs)
    over = []
    for field in [f for f in runs[names[0]][0] if f.startswith("ns_")]:
        print(f"{field}, median of the runs:")
        values = {n: [r[field] for r in runs[n]] for n in names}
        for i, n in enumerate(names):
            step = f"{statistics.median(values[n]) - statistics.median(values[names[i - 1]]):+8.0f}" \
                   f" vs {names[i - 1]}" if i else ""
            each = " ".join(f"{v:.0f}" for v in values[n])
            print(f"  {n:16} {statistics.median(values[n]):8.0f} {step:28} runs {each}")
        total = paired(values["agent"], values["none"])
        cupti = paired(values["null-api"], values["none"])
        own = paired(values["agent"], values["null-api"])
        verdict = "" if goal_ns == "-" else \
            f"; goal <= {goal_ns} ns {'met' if total <= float(goal_ns) else 'MISSED'}"
        print(f"  per-round differences: agent - none {total:+.0f} ns{verdict}; of which "
              f"CUPTI (null-api - none) {cupti:+.0f} ns, brickprof's own code (agent - null-api) "
              f"{own:+.0f} ns" + ("" if max_own_ns == "-" else f" (limit {max_own_ns})"))
        if max_own_ns != "-" and own > float(max_own_ns):
            over.append(f"{field}: brickprof's own code adds {own:.0f} ns > {max_own_ns}")
    if over:
        fail("; ".join(over))
    print("ok")


def cmd_figures(trace_path, report_path, under=None):
    """The figures of `report --json --summary --gpu-idle --transfers
    --critical-path` of a real trace against what the nodes say: each
    brick's GPU time is its kernels', categories add up to the bricks,
    the critical path is no longer than the measured span (0.5% or 1 us
    for clocks a little apart) and its steps add up, every device's busy,
    idle and unrecorded time make its span, no copy without a duration is
    rated. With UNDER, the report is of `--under UNDER`: only kernels under
    a scope so named count."""
    t = load(trace_path)
    r = load(report_path)
    by_id = {n["id"]: n for n in t["nodes"]}

    def inside(n):
        p = n
        while p is not None and p["name"] != under:
            p = by_id.get(p.get("parent"))
        return p is not None

    gpu = {}
    for n in t["nodes"]:
        if n["kind"] != "kernel" or (under is not None and not inside(n)):
            continue
        p = by_id.get(n.get("parent"))
        while p is not None and p["kind"] != "brick":
            p = by_id.get(p.get("parent"))
        if p is not None:
            gpu[p["name"]] = gpu.get(p["name"], 0) + n["end_ns"] - n["start_ns"]
    problems = []
    bricks = r["summary"]["bricks"]
    for b in bricks:
        if b["gpu_ns"] != gpu.get(b["name"], 0):
            problems.append(f"brick {b['name']}: GPU {b['gpu_ns']} ns, its kernels {gpu.get(b['name'], 0)}")
    if sum(c["total_ns"] for c in r["summary"]["categories"]) != sum(b["total_ns"] for b in bricks):
        problems.append("category totals differ from the bricks'")
    cp = r["critical-path"]
    slack = max(1000, cp["measured_span_ns"] // 200)
    print(f"critical path {cp['length_ns']} ns, measured span {cp['measured_span_ns']} ns")
    if cp["length_ns"] > cp["measured_span_ns"] + slack:
        problems.append(f"critical path {cp['length_ns']} ns > measured span {cp['measured_span_ns']} ns")
    if sum(s["duration_ns"] for s in cp["steps"]) + cp["start_offset_ns"] != cp["length_ns"]:
        problems.append("the path's steps and start offset do not add up to its length")
    for d in r["gpu-idle"]["devices"]:
        gaps = sum(b["ns"] for b in d["gap_sizes"].values())
        if d["busy_ns"] + gaps + d["outside_capture_ns"] != d["span_ns"] or \
                d["host_ns"] + d["issued_ns"] + d["unknown_ns"] != gaps:
            problems.append(f"GPU {d['device']}: busy, gaps and idle do not add up")
    for c in r["transfers"]["slow"] + r["transfers"]["pageable"]:
        if c["gbps"] is not None and c["duration_ns"] <= 0:
            problems.append(f"copy {c['node']} of no duration has a rate")
    if problems:
        fail("; ".join(problems[:5]))
    print(f"ok: {len(bricks)} bricks, {len(r['gpu-idle']['devices'])} devices")


def cmd_first_screen(brickprof, empty, bricklayer):
    import subprocess

    def report(*args):
        r = subprocess.run([brickprof, "report", *args], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"brickprof report {' '.join(args)}: exit {r.returncode}: {r.stderr}")
        return r.stdout

    text = report(empty)
    print(text)
    lines = text.split("\n")
    if not lines[1].startswith("Nothing recorded: "):
        fail("the empty trace does not say nothing was recorded")
    if "GPU: none; no GPU work ran while CUPTI recorded" not in lines:
        fail("the empty trace's GPU line: " + repr(lines[2]))
    text = report(bricklayer, "--summary", "--tree", "--roofline")
    lines = text.split("\n")
    if not lines[1].startswith("GPU: CUPTI active ("):
        fail("no CUPTI line under the header: " + repr(lines[1]))
    heads = [l for l in lines if l.startswith("Brick ")]
    if not heads or "GPU" not in heads[0]:
        fail(f"no GPU column: {heads}")
    tree_end = [l for l in lines if l.startswith("└── ")]
    if not tree_end or not tree_end[-1].startswith("└── (outside every scope) "):
        fail(f"the tree's last line: {tree_end[-1:] }")
    device = load(bricklayer)["devices"][0]["name"]
    if f"  GPU 0 peak ({device}, " not in text:
        fail(f"the roofline's peaks are not named for {device}")
    print("ok")


def cmd_memory(trace_path, out_path):
    import re
    with open(out_path) as f:
        m = re.search(r"memory \(bytes\): weights (\d+), activations (\d+), kv_cache (\d+); "
                      r"from the CUDA driver (\d+) in (\d+) cuMemAlloc", f.read())
    if not m:
        fail(f"no memory line in {out_path}")
    want = {"weights": int(m[1]), "activations": int(m[2]), "kv_cache": int(m[3])}
    t = load(trace_path)
    pools, reserved, allocs = {}, 0, 0
    for e in t.get("memory", []):
        if e["op"] != "alloc" or e.get("result", 0) != 0:
            continue
        if e["source"] == "program":
            pools[e["api"]] = pools.get(e["api"], 0) + e["bytes"]
        elif e["source"] == "device":
            reserved += e["bytes"]
            allocs += 1
    print(f"program pools {pools} (bricklayer {want}); driver {reserved} B in {allocs} "
          f"allocations (bricklayer {m[4]} in {m[5]})")
    if pools != want:
        fail("the program's pools differ from bricklayer's figures")
    if (reserved, allocs) != (int(m[4]), int(m[5])):
        fail("the driver-level allocations differ from bricklayer's cuMemAllocs")
    shaped = {s["node"] for s in t.get("shapes", [])}
    unshaped = [n["name"] for n in t["nodes"] if n["kind"] == "brick" and n["id"] not in shaped]
    if unshaped:
        fail(f"{len(unshaped)} bricks without shapes, e.g. {unshaped[0]}")
    print("ok")


if __name__ == "__main__":
    cmds = {"probe": cmd_probe, "attributed": cmd_attributed, "ranges": cmd_ranges,
            "ncu": cmd_ncu, "overhead": cmd_overhead, "captured": cmd_captured,
            "whole-graphs": cmd_whole_graphs, "globaltimer": cmd_globaltimer,
            "python-frames": cmd_python_frames, "figures": cmd_figures,
            "first-screen": cmd_first_screen, "memory": cmd_memory}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        print(__doc__)
        sys.exit(2)
    cmds[sys.argv[1]](*sys.argv[2:])
