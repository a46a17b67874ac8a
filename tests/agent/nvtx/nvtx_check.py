#!/usr/bin/env python3
"""Runs the NVTX-annotated program with the agent injected through
NVTX_INJECTION64_PATH only (no LD_PRELOAD) and checks the trace: layers,
bricks (aliases resolved), scopes and marks, with the right nesting."""
import json
import os
import subprocess
import sys
import tempfile

program, agent = sys.argv[1], sys.argv[2]


def traced_run(**extra_env):
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        env.update(NVTX_INJECTION64_PATH=agent, BRICKPROF_OUTPUT=os.path.join(tmp, "t"),
                   BRICKPROF_FORMATS="json", BRICKPROF_LOG="warn", **extra_env)
        run = subprocess.run([program], env=env, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run
        assert run.stdout == "nvtx program done\n", run.stdout  # output unchanged
        assert run.stderr == "", run.stderr
        with open(os.path.join(tmp, "t.json")) as f:
            return json.load(f)


trace = traced_run()

nodes = trace["nodes"]
by_id = {n["id"]: n for n in nodes}


def path(n):
    names = []
    while n is not None:
        names.append(n["name"])
        n = by_id.get(n["parent"]) if n.get("parent") is not None else None
    return "/".join(reversed(names))


paths = sorted((path(n), n["kind"]) for n in nodes)
expected = []
for layer in (0, 1):
    L = f"Layer {layer}"
    expected += [
        (L, "layer"),
        (f"{L}/RmsNorm", "brick"),
        (f"{L}/RopeEmbedding", "brick"),
        (f"{L}/RopeEmbedding/rope-mark", "scope"),
        (f"{L}/GateProjection", "brick"),
        (f"{L}/GateProjection/Activation", "brick"),
        (f"{L}/custom_softmax", "scope"),
    ]
expected += [("async_load", "scope"), ("overlap_a", "scope"), ("overlap_b", "scope")]
missing = [e for e in expected if e not in paths]
extra = [p for p in paths if p not in expected]
if missing or extra:
    print("missing:", missing, "\nextra:", extra, "\nall:", paths)
    sys.exit(1)
d = trace["diagnostics"]
assert d["unbalanced_pops"] == 0, d
layers = [n for n in nodes if n["kind"] == "layer"]
assert all(n["end_ns"] >= n["start_ns"] for n in nodes)
for l in layers:
    kids = [n for n in nodes if n.get("parent") == l["id"]]
    assert all(l["start_ns"] <= k["start_ns"] and k["end_ns"] <= l["end_ns"] for k in kids)
# The start/end range is one node on a range lane of its own, spanning the
# work(100) between start and end, and named in the thread list.
RANGE_LANE_BASE = 0x80000000
(async_range,) = [n for n in nodes if n["name"] == "async_load"]
assert async_range["thread"] == RANGE_LANE_BASE, async_range
assert async_range["end_ns"] > async_range["start_ns"], async_range
assert async_range["start_ns"] >= max(l["end_ns"] for l in layers), async_range
threads = {t["tid"]: t["name"] for t in trace["threads"]}
assert threads.get(RANGE_LANE_BASE) == "NVTX ranges", threads
(a,) = [n for n in nodes if n["name"] == "overlap_a"]
(b,) = [n for n in nodes if n["name"] == "overlap_b"]
assert a["start_ns"] < b["start_ns"] < a["end_ns"] < b["end_ns"], (a, b)
assert {a["thread"], b["thread"]} == {RANGE_LANE_BASE, RANGE_LANE_BASE + 1}, (a, b)
assert threads.get(RANGE_LANE_BASE + 1) == "NVTX ranges 2", threads
assert d["open_scopes_at_exit"] == 0, d
print("ok:", len(nodes), "nodes;", "nvtx status:", d.get("nvtx"))

# BRICKPROF_CAPTURE=scope:NAME: only the insides of the ranges the trace
# names GateProjection (pushed through a registered "Gate" string) are kept.
captured = traced_run(BRICKPROF_CAPTURE="scope:GateProjection")
by_id = {n["id"]: n for n in captured["nodes"]}
paths = sorted((path(n), n["kind"]) for n in captured["nodes"])
want = [("GateProjection", "brick")] * 2 + [("GateProjection/Activation", "brick")] * 2
assert paths == want, paths
d = captured["diagnostics"]
assert d["capture"].startswith("scope 'GateProjection': 2 windows, "), d
assert d["unbalanced_pops"] == 0 and d["scopes_cut_by_capture"] == 0, d
