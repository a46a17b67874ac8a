#!/usr/bin/env python3
"""brickprof's overhead beside its peers', on the same decode runs
(scripts/gpu-check): each workload runs plain, under brickprof (default,
whole-graph, sampled), under Nsight Systems and under the PyTorch profiler,
the configurations alternating within each round. Prints one table: each
configuration's decode time as a ratio to plain (median tokens/s of the
rounds), and whether brickprof met its goals (at or below every peer in
each mode; sampled within 3% of plain).

  peer_overhead.py --agent LIB --out DIR [--rounds N] [--sample-every K]
                   [--goals] NAME=KIND:CMD...

KIND is native or torch (the PyTorch profiler applies to torch only); CMD
is split like a shell line and must print bricklayer's decode line
"... (R tokens/s ...". A peer that is not installed is listed as "not
available" with the reason. Exit 1 if a brickprof run fails, prints no
rate or leaves no trace, or (--goals) a goal is missed."""
import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys

RATE = re.compile(r"\(([0-9.]+) tokens/s")
SAMPLED_GOAL = 1.03


def torch_cuda_reason():
    """None if PyTorch with CUDA is here, else why not."""
    r = subprocess.run([sys.executable, "-c",
                        "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)"],
                       capture_output=True)
    if r.returncode == 0:
        return None
    return "not available (no CUDA in PyTorch)" if r.returncode == 3 else \
        "not available (no PyTorch)"


def configs(args):
    """(name, how) for each configuration; how(workload, tag) gives (argv
    prefix, env additions), or a string saying why it cannot run."""
    agent_env = {"LD_PRELOAD": args.agent, "CUDA_INJECTION64_PATH": args.agent,
                 "NVTX_INJECTION64_PATH": args.agent, "BRICKPROF_FORMATS": "json"}
    nsys = shutil.which("nsys")

    def brickprof(extra):
        return lambda w, tag: ([], dict(agent_env, BRICKPROF_OUTPUT=os.path.join(args.out, tag),
                                         **extra))

    def nsys_run(graph_trace):
        def how(w, tag):
            if nsys is None:
                return "not available (no nsys on PATH)"
            return ([nsys, "profile", "--force-overwrite", "true", "--trace", "cuda,nvtx",
                     "--cuda-graph-trace", graph_trace, "-o", os.path.join(args.out, tag)], {})
        return how

    def torch_profiler(w, tag):
        if w["kind"] != "torch":
            return "n/a (not a PyTorch program)"
        return ([], {"PEER_TORCH_PROFILER": "1",
                     "PEER_TORCH_TRACE": os.path.join(args.out, tag + ".pt.json")})

    return [
        ("plain", lambda w, tag: ([], {})),
        ("brickprof", brickprof({})),
        ("brickprof whole-graph", brickprof({"BRICKPROF_CUDA_GRAPH_TRACE": "graph"})),
        ("brickprof sampled", brickprof({"BRICKPROF_CAPTURE": "scope:decode token",
                                         "BRICKPROF_CAPTURE_EVERY": str(args.sample_every)})),
        ("nsys (graph nodes)", nsys_run("node")),
        ("nsys (whole graphs)", nsys_run("graph")),
        ("torch profiler", torch_profiler),
    ]


def kernels_per_step(trace_path):
    """Kernels under each "decode token" scope of a trace, in order."""
    nodes = json.load(open(trace_path))["nodes"]
    by_id = {n["id"]: n for n in nodes}
    counts = {n["id"]: 0 for n in nodes if n["name"] == "decode token"}
    for n in nodes:
        if n["kind"] != "kernel":
            continue
        p = n.get("parent")
        while p is not None and p not in counts:
            p = by_id[p].get("parent")
        if p is not None:
            counts[p] += 1
    return list(counts.values())


def windows_complete(out, workload):
    """Every recorded window of the sampled run holds as many kernels as a
    decode step of the default run: none lost when the records were
    switched on at its start or off at its end. None unless every step of
    the default run holds the same number of kernels (graph replays belong
    to the bricks that captured them, all in one step)."""
    full = kernels_per_step(os.path.join(out, f"{slug(workload)}-brickprof-0.json"))
    sampled = kernels_per_step(os.path.join(out, f"{slug(workload)}-brickprof-sampled-0.json"))
    if not full or min(full) != max(full) or full[0] == 0:
        return None
    want = full[0]
    return [c for c in sampled if c != want], want, len(sampled)


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agent", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--sample-every", type=int, default=50)
    p.add_argument("--goals", action="store_true")
    p.add_argument("workloads", nargs="+", metavar="NAME=KIND:CMD")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    workloads = []
    for spec in args.workloads:
        name, _, rest = spec.partition("=")
        kind, _, cmd = rest.partition(":")
        if kind not in ("native", "torch") or not cmd:
            p.error(f"workload {spec!r}: want NAME=native:CMD or NAME=torch:CMD")
        w = {"name": name, "kind": kind, "argv": shlex.split(cmd), "unavailable": None}
        if kind == "torch":
            w["unavailable"] = torch_cuda_reason()
        workloads.append(w)
    table = configs(args)
    rates = {(c, w["name"]): [] for c, _ in table for w in workloads}
    cells = {}  # (config, workload) -> why it did not run
    errors = []
    for r in range(args.rounds):
        for config, how in table:
            for w in workloads:
                key = (config, w["name"])
                if w["unavailable"]:
                    cells[key] = w["unavailable"]
                    continue
                tag = f"{slug(w['name'])}-{slug(config)}-{r}"
                plan = how(w, tag)
                if isinstance(plan, str):
                    cells[key] = plan
                    continue
                prefix, extra = plan
                env = dict(os.environ, **extra)
                run = subprocess.run(prefix + w["argv"], env=env, capture_output=True, text=True)
                with open(os.path.join(args.out, tag + ".out"), "w") as f:
                    f.write(run.stdout + run.stderr)
                m = RATE.search(run.stdout)
                if run.returncode != 0 or m is None:
                    cells[key] = f"failed (exit {run.returncode})"
                    if config.startswith("brickprof") or config == "plain":
                        errors.append(f"{config} on {w['name']}: exit {run.returncode}, "
                                      f"output {(run.stdout + run.stderr)[-500:]!r}")
                    continue
                rates[key].append(float(m.group(1)))
                if config.startswith("brickprof"):
                    trace = os.path.join(args.out, tag + ".json")
                    if not os.path.exists(trace):
                        errors.append(f"{config} on {w['name']}: no trace {trace}")
                    elif config.endswith("sampled") and \
                            not json.load(open(trace))["diagnostics"]["capture_windows"]:
                        errors.append(f"{config} on {w['name']}: no capture window recorded")

    def ratio(config, w):
        plain, mine = rates[("plain", w)], rates[(config, w)]
        if not plain or not mine:
            return None
        return statistics.median(plain) / statistics.median(mine)

    names = [w["name"] for w in workloads]
    width = max(24, *(len(n) + 2 for n in names))
    print(f"decode time under each tool as a ratio to plain (1.000 = no overhead; median "
          f"tokens/s of {args.rounds} alternating rounds; sampled: one decode step in "
          f"{args.sample_every})")
    print(f"{'':24}" + "".join(f"  {n:>{width}}" for n in names))
    for config, _ in table:
        row = f"{config:24}"
        for w in names:
            if config == "plain" and rates[(config, w)]:
                text = f"{statistics.median(rates[(config, w)]):.1f} tok/s"
            else:
                v = ratio(config, w)
                text = f"{v:.3f}" if v is not None else cells.get((config, w), "-")
            row += f"  {text:>{width}}"
        print(row)
    # Each brickprof mode against the peers recording as much.
    peers_of = {"brickprof": ["nsys (graph nodes)", "torch profiler"],
                "brickprof whole-graph": ["nsys (whole graphs)", "torch profiler"]}
    missed = []
    for w in names:
        for mine, peers in peers_of.items():
            a = ratio(mine, w)
            for peer in peers:
                b = ratio(peer, w)
                if a is not None and b is not None:
                    verdict = "met" if a <= b else "MISSED"
                    print(f"goal {w}: {mine} {a:.3f} <= {peer} {b:.3f}: {verdict}")
                    if a > b:
                        missed.append(f"{w}: {mine} above {peer}")
        s = ratio("brickprof sampled", w)
        if s is not None:
            verdict = "met" if s <= SAMPLED_GOAL else "MISSED"
            print(f"goal {w}: brickprof sampled {s:.3f} <= {SAMPLED_GOAL}: {verdict}")
            if s > SAMPLED_GOAL:
                missed.append(f"{w}: sampled {100 * (s - 1):.1f}% over plain")
    for w in workloads:
        if w["unavailable"] or not rates[("brickprof sampled", w["name"])] or \
                not rates[("brickprof", w["name"])]:
            continue
        complete = windows_complete(args.out, w["name"])
        if complete is None:
            continue
        short, want, n = complete
        print(f"{w['name']}: {n} sampled windows, {len(short)} without the {want:.0f} kernels "
              f"of a decode step")
        if short:
            errors.append(f"brickprof sampled on {w['name']}: windows with {short[:5]} kernels, "
                          f"a step has {want:.0f}")
    for e in errors:
        print("FAIL:", e)
    if args.goals and missed:
        print("FAIL: goals missed: " + "; ".join(missed))
    sys.exit(1 if errors or (args.goals and missed) else 0)


if __name__ == "__main__":
    main()
