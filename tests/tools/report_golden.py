#!/usr/bin/env python3
"""Golden outputs of every `brickprof report` view on every fixture trace.

For each trace under the data folder (tests/data/*.json, tests/data/*/*.json)
it runs `report` with every view, as text and --json, alone and together,
with --under, --what-if and the peak overrides, plus `diff` on fixture
pairs and the --help texts, and compares each outcome (exit code, stdout,
stderr, byte for byte) with GOLDEN_DIR/<fixture>.txt. With --update it
writes those files instead (review the diff before committing them).

usage: report_golden.py BRICKPROF DATA_DIR GOLDEN_DIR [--update]
"""
import argparse
import difflib
import glob
import hashlib
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_views import report_views  # noqa: E402

# Per fixture: scope names for --under (one that exists) and --what-if specs
# (names that match). Every fixture also gets a --what-if and an --under of
# names it does not have (exit 2, the closest names). Fixtures not listed get
# DEFAULT_EXTRAS: no --under, no --what-if that matches. The views come
# from `report --help`.
EXTRAS = {
    "tree_small.json": (["QkvProjection"], ["RmsNorm=2", "batched_q4k_gemv=1.5x"]),
    "ptx_source.json": (["RmsNorm"], ["add_one=4"]),
    "analyses/analyzer.json": (["DownProjection"], ["down_gemv=2", "tokenize=3x"]),
    "analyses/diff_base.json": (["RmsNorm"], ["gemv=2"]),
    "analyses/diff_new.json": (["RmsNorm"], ["softmax=2"]),
    "analyses/gpu_idle.json": (["Layer 0"], ["GateProjection=2", "k3=10"]),
    "analyses/merged.json": (["decode token"], ["gate_gemv=2", "MulMat avx512=1.25"]),
    "analyses/roofline.json": (["GateProjection"], ["gate_gemv=2"]),
    "analyses/seed_streams.json": (["Layer 0"], ["QkvProjection=2", "gate_gemv=4x"]),
    "analyses/seed_threads.json": (["Layer 0"], ["GateProjection=2", "AttentionScore=2"]),
    "analyses/serial.json": (["RmsNorm"], ["QkvProjection=2"]),
    "analyses/transfers.json": (["LmHead"], ["cudaMemcpyAsync=2", "Embedding=2"]),
    "analyses/unnamed.json": (['worker; "step" \\ é'], ["RmsNorm=2", 'worker; "step" \\ é=2']),
    "analyses/windows.json": (["decode token"], ["gate_gemv=2", "MulMat avx512=3"]),
    "analyses/cycle.json": (["A"], ["A=2"]),
    "analyses/tokens.json": (["Layer 1"], ["RmsNorm=2"]),
    "analyses/cpu_counters.json": (["Layer 1"], ["RmsNorm=2"]),
    "analyses/gpu_metrics.json": (["GateProjection"], ["gate_gemv=2"]),
    "analyses/python_frames.json": (["python_app.py:41 attention"], ["attention_kernel=2"]),
    "gpu/bricklayer-graph.json": (["decode token"], ["bl_gemv_q4k=2", "QkvProjection=1.5x"]),
    "cpu/bricklayer-avx2.json": ([], ["RmsNorm=2"]),
    "cpu/bricklayer-scalar.json": ([], ["RmsNorm=2"]),
    "mpi/bricklayer-tp2.json": ([], ["RmsNorm=2"]),
}
DEFAULT_EXTRAS = ([], [])
NO_MATCH = "no_such_name=2"
# Traces compared by `diff` (relative to the data folder), each under the first's golden.
DIFF_PAIRS = [
    ("analyses/diff_base.json", "analyses/diff_new.json"),
    ("analyses/diff_new.json", "analyses/diff_base.json"),
    ("tree_small.json", "gpu/bricklayer-graph.json"),
    ("analyses/windows.json", "analyses/merged.json"),
]


def report_cases(fixture, views):
    """The argument lists run on one fixture (FILE stands for its path)."""
    switches, valued, no_json = views
    if valued != ["what-if"]:
        raise SystemExit("report_golden.py: values to give --%s?" % " --".join(valued))
    unders, what_ifs = EXTRAS.get(fixture, DEFAULT_EXTRAS)
    cases = [["report", "FILE"], ["report", "--json", "FILE"]]
    for v in switches:
        cases.append(["report", "--" + v, "FILE"])
        if v not in no_json:
            cases.append(["report", "--json", "--" + v, "FILE"])
    every = ["--" + v for v in switches if v not in no_json]
    cases += [["report", "FILE"] + every, ["report", "--json", "FILE"] + every]
    specs = []
    for spec in what_ifs:
        specs += ["--what-if", spec]
    if specs:
        cases += [["report", "FILE"] + specs, ["report", "--json", "FILE"] + specs,
                  ["report", "FILE", "--critical-path"] + specs,
                  ["report", "--json", "FILE", "--critical-path"] + specs,
                  ["report", "FILE", "--summary"] + specs]
    cases += [["report", "FILE", "--critical-path", "--what-if", NO_MATCH],
              ["report", "--json", "FILE"] + specs + ["--what-if", NO_MATCH]]
    peaks = ["--peak-gflops", "100", "--peak-gbps", "10", "--link-gbps", "12.5"]
    for p in (peaks, ["--peak-gbps", "50"], ["--peak-gflops", "2e3"]):
        cases += [["report", "FILE", "--roofline", "--transfers"] + p,
                  ["report", "--json", "FILE", "--roofline", "--transfers"] + p]
    for name in unders:
        u = ["--under", name]
        cases += [["report", "FILE"] + u, ["report", "FILE"] + every + u,
                  ["report", "--json", "FILE"] + every + u, ["report", "FILE", "--dot"] + u,
                  ["report", "FILE", "--folded"] + u, ["report", "FILE", "--chrome"] + u,
                  ["report", "FILE"] + u + specs, ["report", "--json", "FILE"] + u + specs,
                  ["report", "FILE", "--roofline", "--transfers"] + u + peaks]
    cases.append(["report", "FILE", "--under", "no such scope"])
    for name in unders[:1]:  # the case changed: bad input, the name as it is suggested
        if name.swapcase() != name:
            cases.append(["report", "FILE", "--under", name.swapcase()])
    return cases


# Views whose output is binary: recorded by size and SHA-256, so the golden
# files stay text (the decoder test checks their content).
BINARY_VIEWS = {"--perfetto"}


def run(brickprof, args, data_dir):
    """One case's record: the command, exit code, stdout and stderr, exactly."""
    out_file = None
    if "OUT" in args:
        fd, out_file = tempfile.mkstemp(prefix="brickprof-golden-", suffix=".txt")
        os.close(fd)
        os.unlink(out_file)
        args_run = [out_file if a == "OUT" else a for a in args]
    else:
        args_run = args
    # Help is wrapped to COLUMNS (else 80 when not a terminal): the same
    # wherever the goldens are made.
    env = dict(os.environ, COLUMNS="80")
    proc = subprocess.run([brickprof] + args_run, cwd=data_dir, capture_output=True, timeout=120,
                          env=env)
    stdout = proc.stdout
    stderr = proc.stderr
    if out_file is not None:  # "brickprof: wrote /tmp/brickprof-golden-...": named OUT
        stderr = stderr.replace(out_file.encode(), b"OUT")
    if out_file is not None:
        # -o writes the views to the file and nothing to stdout.
        written = b""
        if os.path.exists(out_file):
            with open(out_file, "rb") as f:
                written = f.read()
            os.unlink(out_file)
        stdout = b"[stdout] " + proc.stdout + b"\n[OUT] " + written
    if BINARY_VIEWS & set(args) and proc.returncode == 0:
        stdout = b"[binary: %d bytes, sha256 %s]" % (len(stdout),
                                                      hashlib.sha256(stdout).hexdigest().encode())
    shown = " ".join(a if a and " " not in a and '"' not in a else repr(a) for a in args)
    return (b"=== brickprof " + shown.encode() + b"\n" +
            b"--- exit %d, stdout %d bytes\n" % (proc.returncode, len(stdout)) + stdout +
            b"\n--- stderr %d bytes\n" % len(stderr) + stderr + b"\n")


def fixtures(data_dir):
    found = glob.glob(os.path.join(data_dir, "*.json")) + \
        glob.glob(os.path.join(data_dir, "*", "*.json"))
    return sorted(os.path.relpath(f, data_dir) for f in found)


def documents(brickprof, data_dir):
    """{golden file name: bytes} for every fixture and the CLI's help."""
    docs = {}
    views = report_views(brickprof)
    for fixture in fixtures(data_dir):
        cases = [[fixture if a == "FILE" else a for a in c] for c in report_cases(fixture, views)]
        if fixture == "tree_small.json":
            cases.append(["report", fixture, "--summary", "--critical-path", "-o", "OUT"])
            cases.append(["report", fixture, "--json", "--tree", "-o", "OUT"])
            # A file format is a file of its own: never two in one output.
            cases.append(["report", fixture, "--chrome", "--dot", "-o", "OUT"])
            cases.append(["report", fixture, "--summary", "--folded"])
        for base, new in DIFF_PAIRS:
            if base == fixture:
                for extra in ([], ["--json"], ["--threshold", "50"], ["--min-time", "0"],
                              ["--min-time", "1ms", "--json"]):
                    cases.append(["diff", base, new] + extra)
        if fixture == "gpu/bricklayer-graph.json":
            cases.append(["diff", fixture, fixture, "--under", "decode token"])
            cases.append(["diff", fixture, fixture, "--under", "decode token", "--json"])
        docs[fixture[:-len(".json")] + ".txt"] = b"".join(run(brickprof, c, data_dir)
                                                          for c in cases)
    usage = [[], ["--help"], ["run", "--help"], ["report", "--help"], ["diff", "--help"],
             ["merge", "--help"], ["ptx", "--help"], ["view", "--help"], ["report"],
             ["report", "--json", "--dot", "tree_small.json"],
             ["report", "--what-if", "RmsNorm", "tree_small.json"],
             ["report", "--what-if", "RmsNorm=0", "tree_small.json"],
             ["report", "--peak-gbps", "abc", "tree_small.json"],
             ["report", "--link-gbps", "0", "--roofline", "tree_small.json"],
             ["report", "--bogus", "tree_small.json"],
             ["report", "--sumary", "tree_small.json"],
             ["reprot", "tree_small.json"],
             ["report", "no_such_file.json"]]
    docs["cli.txt"] = b"".join(run(brickprof, c, data_dir) for c in usage)
    return docs


def split_cases(doc):
    """[(header, record)] of one golden document, for reporting what differs."""
    cases, start = [], 0
    lines = doc.split(b"\n=== brickprof ")
    for i, part in enumerate(lines):
        text = part if i == 0 else b"=== brickprof " + part
        cases.append((text.split(b"\n", 1)[0], text))
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("brickprof")
    ap.add_argument("data_dir")
    ap.add_argument("golden_dir")
    ap.add_argument("--update", action="store_true", help="write the golden files")
    o = ap.parse_args()
    brickprof = os.path.abspath(o.brickprof)
    docs = documents(brickprof, o.data_dir)
    if o.update:
        os.makedirs(o.golden_dir, exist_ok=True)
        for name, doc in docs.items():
            path = os.path.join(o.golden_dir, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(doc)
        print("wrote %d golden files to %s" % (len(docs), o.golden_dir))
        return
    failures = 0
    for name, doc in sorted(docs.items()):
        path = os.path.join(o.golden_dir, name)
        if not os.path.exists(path):
            print("%s: no golden file (new fixture? run %s --update)" % (path, sys.argv[0]))
            failures += 1
            continue
        with open(path, "rb") as f:
            expected = f.read()
        if expected == doc:
            continue
        failures += 1
        want = dict(split_cases(expected))
        got = split_cases(doc)
        shown = 0
        for header, record in got:
            if want.get(header) == record:
                continue
            print("%s: differs: %s" % (name, header.decode(errors="replace")))
            if shown < 3:
                diff = difflib.unified_diff(
                    want.get(header, b"").decode(errors="replace").splitlines(),
                    record.decode(errors="replace").splitlines(), "expected", "got", lineterm="")
                print("\n".join(list(diff)[:40]))
            shown += 1
        if len(got) != len(want):
            print("%s: %d cases, expected %d" % (name, len(got), len(want)))
    stale = [f for f in glob.glob(os.path.join(o.golden_dir, "**", "*.txt"), recursive=True)
             if os.path.relpath(f, o.golden_dir) not in docs]
    for f in stale:
        print("%s: golden file of no fixture" % f)
    failures += len(stale)
    print("%d golden files, %d differ" % (len(docs), failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
