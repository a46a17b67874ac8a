#!/usr/bin/env python3
"""Writes a big trace shaped like a real decode run: the nodes under the
roots named NAME in a recorded trace (and their edges inside), repeated
until the trace has about N nodes, each copy later in time than the last,
with fresh node ids and correlation ids. Unlike bench_analysis' synthetic
traces, where every layer has its own name and nothing merges, here the
aggregate tree stays the size of one step, as in a recorded trace.

usage: repeat_trace.py IN.json OUT.json N [--name "decode token"]
"""
import argparse
import json


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("nodes", type=int)
    ap.add_argument("--name", default="decode token")
    a = ap.parse_args()
    t = json.load(open(a.input))
    nodes = {n["id"]: n for n in t["nodes"]}
    inside = set()
    for n in t["nodes"]:  # parents precede children in a recorded trace
        if n["name"] == a.name and n.get("parent") is None:
            inside.add(n["id"])
        elif n.get("parent") in inside:
            inside.add(n["id"])
    step = [nodes[i] for i in sorted(inside)]
    if not step:
        raise SystemExit("no root named %r in %s" % (a.name, a.input))
    edges = [e for e in t["edges"] if e["src"] in inside and e["dst"] in inside]
    start = min(n["start_ns"] for n in step)
    span = max(n["end_ns"] for n in step) - start
    out_nodes, out_edges = [], []
    next_id = 0
    copies = max(1, a.nodes // len(step))
    for c in range(copies):
        ids = {}
        for n in step:
            ids[n["id"]] = next_id
            next_id += 1
        shift = c * (span + 1000)
        for n in step:
            m = dict(n, id=ids[n["id"]], start_ns=n["start_ns"] + shift,
                     end_ns=n["end_ns"] + shift)
            m["parent"] = ids.get(n.get("parent"))
            for key in ("api_start_ns", "api_end_ns"):
                if key in m:
                    m[key] += shift
            if "correlation" in m:
                m["correlation"] += c * 1_000_000
            out_nodes.append(m)
        out_edges += [dict(e, src=ids[e["src"]], dst=ids[e["dst"]]) for e in edges]
    t["nodes"], t["edges"] = out_nodes, out_edges
    t["process"]["end_ns"] = t["process"]["start_ns"] + copies * (span + 1000) + (
        start - t["process"]["start_ns"])
    t.pop("bricks", None)
    t.pop("categories", None)
    with open(a.output, "w") as f:
        json.dump(t, f, separators=(",", ":"))
    print("%s: %d copies of %d nodes under %r" % (a.output, copies, len(step), a.name))


if __name__ == "__main__":
    main()
