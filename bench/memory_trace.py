#!/usr/bin/env python3
"""A generated trace of N memory events for timing `brickprof report --memory`
(BENCHMARKS.md, "report --memory at scale"): a decode loop of N/100 steps, each
a scope with a child "attention" scope, each step allocating and freeing 48
device buffers (a quarter by cuMemAllocAsync), keeping one (a leak that
grows per step), 2 program-pool events, under 4 Python lines; deterministic.

  memory_trace.py N OUT.json
"""
import json
import sys


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    per_step = 100
    steps = max(1, n // per_step)
    step_ns = 10_000
    nodes, memory = [], []
    t0 = 1_000_000
    for s in range(steps):
        start = t0 + s * step_ns
        sid = len(nodes)
        nodes.append({"id": sid, "kind": "scope", "name": "step", "parent": None, "thread": 1,
                      "start_ns": start, "end_ns": start + step_ns - 10})
        aid = len(nodes)
        nodes.append({"id": aid, "kind": "scope", "name": "attention", "parent": sid, "thread": 1,
                      "start_ns": start + 100, "end_ns": start + step_ns - 200})
        t = start + 150
        base = 0x7f0000000000 + s * 0x100000
        for i in range(49):
            src = "async" if i % 4 == 0 else "device"
            memory.append({"t": t, "thread": 1, "scope": aid if i % 2 else sid, "op": "alloc",
                           "source": src, "device": 0, "address": hex(base + i * 4096),
                           "bytes": 4096 * (1 + i % 7), "api": "cuMemAlloc_v2",
                           "python_stack": i % 4})
            t += 40
        for i in range(48):  # the 49th stays: the leak
            memory.append({"t": t, "thread": 1, "scope": sid, "op": "free", "source": "device",
                           "device": 0, "address": hex(base + i * 4096), "api": "cuMemFree_v2"})
            t += 40
        for op in ("alloc", "free"):
            e = {"t": t, "thread": 1, "scope": aid, "op": op, "source": "program", "device": 0,
                 "address": hex(0x10000 + s), "api": "kv_cache"}
            if op == "alloc":
                e["bytes"] = 1024
            memory.append(e)
            t += 40
    memory = memory[:n]
    trace = {
        "schema": "brickprof/1",
        "process": {"pid": 1, "ppid": 0, "program": "memory_trace", "cmdline": "memory_trace",
                    "host": "bench", "rank": -1, "start_ns": t0,
                    "end_ns": t0 + steps * step_ns, "clock": "CLOCK_MONOTONIC"},
        "devices": [{"id": 0, "name": "Generated GPU", "sm_count": 132, "memory_bytes": 80 << 30}],
        "threads": [{"tid": 1, "name": "main"}],
        "nodes": nodes, "edges": [], "memory": memory,
        "python_frames": [{"file": "/app/model.py", "line": 10 * (k + 1), "function": "f"}
                          for k in range(4)],
        "python_stacks": [[k] for k in range(4)],
    }
    with open(out, "w") as f:
        json.dump(trace, f)


if __name__ == "__main__":
    main()
