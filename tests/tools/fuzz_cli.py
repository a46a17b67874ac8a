#!/usr/bin/env python3
"""Mutation fuzz of the brickprof CLI on corrupt traces.

Each case mutates a seed trace (structurally: values swapped for other
types, extremes, other ids; or byte-wise: flips, cuts, stray brackets) and
runs `report` (a random set of views, or the HTML page), `diff`, `merge` or
`ptx` on it. Every
outcome must be exit 0 (1 for diff), or exit 2 with one printable line on
stderr; never a signal, a hang, or a sanitizer report (run it against a
-Db_sanitize=address,undefined build: scripts/fuzz). Failing inputs are kept.

usage: fuzz_cli.py BRICKPROF SEED_DIR... [--cases N] [--seed S] [--keep DIR]
"""
import argparse
import copy
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

WEIRD = [None, True, False, 0, -1, 1, 2**31, -2**31, 2**53, 2**63 - 1, -2**63, 2**64 - 1,
         2**64, 1e308, -1e308, 1.5, -0.0, 1e-300, "", "x", "Layer 0", "brick", "kernel",
         "H2D", "\u00e9\u4e2d", [], {}, [1, 2], {"a": 1}, "\x00", "%s%n", "a" * 5000]
VIEWS = ["--summary", "--tree", "--critical-path", "--roofline", "--transfers", "--gpu-idle",
         "--launches", "--analyze"]
FILE_VIEWS = ["--dot", "--chrome", "--folded"]
SANITIZER_SIGNS = ("AddressSanitizer", "LeakSanitizer", "runtime error:")


def leaves_and_nodes(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for k, x in value.items():
            yield from leaves_and_nodes(x, path + (k,))
    elif isinstance(value, list):
        for i, x in enumerate(value):
            yield from leaves_and_nodes(x, path + (i,))


def mutate_structure(rng, doc):
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 4)):
        paths = [p for p, _ in leaves_and_nodes(doc) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        key = path[-1]
        old = parent[key]
        if rng.random() < 0.5 and not isinstance(old, (dict, list, bool)) and old is not None:
            # Same type, so the trace often still parses and the analyses
            # see odd but valid data: other ids and times, other names.
            same = [v for _, v in leaves_and_nodes(doc) if type(v) is type(old)]
            if isinstance(old, int) and rng.random() < 0.5:
                parent[key] = max(0, old + rng.choice([-1, 1, -1000, 1000, -old // 2, old]))
            else:
                parent[key] = rng.choice(same)
            continue
        op = rng.random()
        if op < 0.4:
            parent[key] = copy.deepcopy(rng.choice(WEIRD))
        elif op < 0.55:
            del parent[key]
        elif op < 0.7 and isinstance(parent, list):
            parent.insert(rng.randint(0, len(parent)), copy.deepcopy(parent[key]))
        elif op < 0.85:  # another value of the same trace: ids, parents, times
            scalars = [v for _, v in leaves_and_nodes(doc) if not isinstance(v, (dict, list))]
            parent[key] = rng.choice(scalars or [0])
        elif isinstance(parent[key], (int, float)) and not isinstance(parent[key], bool):
            parent[key] = parent[key] + rng.choice([-1, 1, -10**9, 10**9, -parent[key] * 2])
        elif isinstance(parent, list) and len(parent) > 1:
            rng.shuffle(parent)
    return json.dumps(doc).encode()


def mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if not data:
            break
        i = rng.randrange(len(data))
        op = rng.random()
        if op < 0.4:
            data[i] = rng.randrange(256)
        elif op < 0.6:
            del data[i:i + rng.randint(1, 64)]
        elif op < 0.8:
            data[i:i] = rng.choice([b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"-",
                                    b"e9999", b"null", b"1e400", b"\\u0000", b"\xff\xfe"])
        else:
            j = rng.randrange(len(data))
            data[i:i] = data[j:j + rng.randint(1, 200)]
    return bytes(data)


def command(rng, case, seed_file, scratch):
    r = rng.random()
    if r < 0.12:
        args = ["diff", seed_file, case] if rng.random() < 0.5 else ["diff", case, seed_file]
        if rng.random() < 0.3:
            args += ["--html", os.path.join(scratch, "diff.html")]
        return args
    if r < 0.22:
        return ["merge", case, seed_file, "-o", os.path.join(scratch, "merged.json")]
    if r < 0.27:
        return ["ptx", case, "0x%016x" % rng.getrandbits(64)]
    if r < 0.37:
        return ["report", case, rng.choice(FILE_VIEWS)]
    views = rng.sample(VIEWS, rng.randint(1, len(VIEWS)))
    if rng.random() < 0.3:
        views.append("--json")
    if rng.random() < 0.2:
        views += ["--under", rng.choice(["decode token", "Layer 0", "RmsNorm"])]
    if rng.random() < 0.1:
        views += ["--what-if", "MulMat=2"]
    if rng.random() < 0.3:
        views += ["--html", os.path.join(scratch, "report.html")]
    return ["report", case] + views


def judge(args, proc):
    """None when the outcome is acceptable, else what was wrong."""
    err = proc.stderr.decode(errors="replace")
    if any(sign in err for sign in SANITIZER_SIGNS):
        return "sanitizer"
    allowed = (0, 1, 2) if args[0] == "diff" else (0, 2)
    if proc.returncode not in allowed:
        return "exit %d" % proc.returncode
    if proc.returncode == 2:
        printable = all(ch == "\n" or ord(ch) >= 32 for ch in err)
        if err.count("\n") != 1 or not err.endswith("\n") or not printable:
            return "error not one printable line"
    elif any(line and "warning" not in line.lower() and not line.startswith("brickprof: wrote ")
             for line in err.splitlines()):
        return "stderr without an error"  # only the files written are said there
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("brickprof")
    ap.add_argument("seed_dirs", nargs="+")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="folder for failing inputs (default: a temporary one)")
    ap.add_argument("--timeout", type=float, default=60)
    o = ap.parse_args()
    rng = random.Random(o.seed)
    seeds = sorted(f for d in o.seed_dirs for f in glob.glob(os.path.join(d, "*.json")))
    if not seeds:
        sys.exit("fuzz_cli: no *.json seeds in " + " ".join(o.seed_dirs))
    docs = {}
    for f in seeds:
        raw = open(f, "rb").read()
        try:
            docs[f] = (raw, json.loads(raw))
        except ValueError:
            docs[f] = (raw, None)
    scratch = tempfile.mkdtemp(prefix="brickprof-fuzz-")
    keep = o.keep or scratch
    os.makedirs(keep, exist_ok=True)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="print_stacktrace=1")
    failures = 0
    exits = {}
    for n in range(o.cases):
        seed_file = rng.choice(seeds)
        raw, doc = docs[seed_file]
        data = mutate_structure(rng, doc) if doc is not None and rng.random() < 0.7 \
            else mutate_bytes(rng, raw)
        case = os.path.join(scratch, "case.json")
        with open(case, "wb") as f:
            f.write(data)
        args = command(rng, case, seed_file, scratch)
        try:
            proc = subprocess.run([o.brickprof] + args, capture_output=True, timeout=o.timeout,
                                  env=env)
            wrong = judge(args, proc)
            exits[proc.returncode] = exits.get(proc.returncode, 0) + 1
        except subprocess.TimeoutExpired:
            wrong = "hang"
        if wrong:
            failures += 1
            kept = os.path.join(keep, "failure-%d.json" % n)
            with open(kept, "wb") as f:
                f.write(data)
            shown = " ".join(kept if a == case else a for a in args)
            print("case %d: %s: brickprof %s" % (n, wrong, shown), flush=True)
        elif (n + 1) % 500 == 0:
            print("%d cases, %d failures" % (n + 1, failures), flush=True)
    by_exit = ", ".join("exit %d: %d" % (code, count) for code, count in sorted(exits.items()))
    print("%d cases from %d seeds (%s), %d failures" % (o.cases, len(seeds), by_exit, failures))
    if failures == 0 or o.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
