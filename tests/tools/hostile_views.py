#!/usr/bin/env python3
"""Every report view (and the HTML pages) on hostile traces, in a child limited to 4 GiB of
address space: each must finish (exit 0) or stop with one clear line on
stderr (exit 2, naming the file). Running out of memory, a signal (a stack
overflow from recursion on depth) or a hang is a failure. Time is not
judged: the timeout only catches hangs.

The traces (hostile_traces.py): a chain of 10^5 nested scopes with GPU work
at the bottom, 10^6 distinct names, names of several MB, 10^5 threads. The
folded export of the chain keeps 127 frames and one for the rest.

usage: hostile_views.py BRICKPROF [--dir DIR] [--depth N] [--names N] [--huge-mb N]
                        [--threads N]
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import hostile_traces  # noqa: E402
from checks import skip  # noqa: E402
from report_views import report_views  # noqa: E402

ADDRESS_SPACE = 4 << 30
TIMEOUT_S = 1800

# The views come from `report --help`; these are the values for --what-if.
WHAT_IF = {"deep": "RmsNorm=2", "names": "kernel_0000007=2", "huge": "k=2", "threads": "RmsNorm=2"}
UNDER = {"deep": "nest 1", "names": "all", "huge": "Layer 0", "threads": "RmsNorm"}
MAX_FOLDED_FRAMES = 128  # 127 frames and "[deeper frames]"

# Cases known to fail, each with why. The file exports are not the views'
# code (trace/formats/*.cpp): a failure there is reported to their owner
# and listed here until fixed; an unexpected pass fails the test so this
# list stays true.
KNOWN_FAILURES = {}


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def judge(proc):
    """None when the outcome is acceptable, else what was wrong."""
    err = proc.stderr.decode(errors="replace")
    if proc.returncode == 0:
        return None
    if proc.returncode != 2:
        return "exit %d (%s)" % (proc.returncode, err.strip()[:200])
    if err.count("\n") != 1 or not err.endswith("\n"):
        return "exit 2 without exactly one line on stderr: %r" % err[:300]
    if "out of memory" in err or "bad_alloc" in err:
        return "ran out of memory: %s" % err.strip()[:200]
    if not err.startswith("brickprof: ") or ".json" not in err:
        return "exit 2 with a line that names no file: %s" % err.strip()[:200]
    return None


def cases(name, views):
    switches, valued, no_json = views
    if valued != ["what-if"]:
        raise SystemExit("hostile_views.py: values to give --%s?" % " --".join(valued))
    out = [[]]
    for v in switches:
        out.append(["--" + v])
        if v not in no_json:
            out.append(["--json", "--" + v])
    out += [["--what-if", WHAT_IF[name]], ["--json", "--what-if", WHAT_IF[name]],
            ["--under", UNDER[name], "--critical-path", "--gpu-idle", "--transfers"]]
    return out


def check_folded_depth(brickprof, path, folder):
    """1 (a failure) unless the deepest folded line of `path` is cut at MAX_FOLDED_FRAMES."""
    out = os.path.join(folder, "deep.folded")
    proc = subprocess.run([brickprof, "report", path, "--folded", "-o", out],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=TIMEOUT_S,
                          preexec_fn=limit_memory)
    if proc.returncode != 0:
        print("FAIL: brickprof report deep --folded -o: exit %d" % proc.returncode)
        return 1
    with open(out, encoding="utf-8", errors="replace") as f:
        deepest = max((line.count(";") + 1 for line in f), default=0)
    os.unlink(out)
    if deepest > MAX_FOLDED_FRAMES:
        print("FAIL: the deep folded export has a line of %d frames (at most %d)"
              % (deepest, MAX_FOLDED_FRAMES))
        return 1
    print("ok: the deep folded export keeps at most %d frames a line" % MAX_FOLDED_FRAMES)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("brickprof")
    ap.add_argument("--dir", help="where to write the traces (default: a temporary folder)")
    ap.add_argument("--depth", type=int, default=100_000)
    ap.add_argument("--names", type=int, default=1_000_000)
    ap.add_argument("--huge-mb", type=int, default=4)
    ap.add_argument("--threads", type=int, default=100_000)
    o = ap.parse_args()
    folder = o.dir or tempfile.mkdtemp(prefix="brickprof-hostile-")
    os.makedirs(folder, exist_ok=True)
    traces = {
        "deep": lambda p: hostile_traces.deep(p, o.depth),
        "names": lambda p: hostile_traces.names(p, o.names),
        "huge": lambda p: hostile_traces.huge(p, o.huge_mb),
        "threads": lambda p: hostile_traces.threads(p, o.threads),
    }
    # A sanitized build reserves terabytes of shadow memory at start: it
    # cannot run under the limit at all, so there is nothing to judge.
    start = subprocess.run([o.brickprof, "--version"], capture_output=True,
                           preexec_fn=limit_memory)
    if start.returncode != 0:
        skip("%s does not start under a %d GiB address-space limit (sanitized build?)"
             % (o.brickprof, ADDRESS_SPACE >> 30))
    views = report_views(o.brickprof)
    failures = 0
    try:
        for name, write in traces.items():
            path = os.path.join(folder, name + ".json")
            write(path)
            runs = [["report", path] + c for c in cases(name, views)] + [["diff", path, path]]
            # The HTML pages. Not of the huge names: the page embeds the views' JSON, and the
            # transfers view's alone is 6.3 GB there (a 4 MB scope name on each of 1,500
            # copies), which proves nothing the views above do not.
            if name != "huge":
                page = os.path.join(folder, name + ".html")
                runs += [["report", path, "--html", page], ["diff", path, path, "--html", page]]
            for args in runs:
                shown = " ".join(name if a == path else a for a in args)
                flags = tuple(a for a in args[2:] if a.startswith("--") and a != "--json")
                known = KNOWN_FAILURES.get((name, flags[0])) if len(flags) == 1 and \
                    "--json" not in args else None
                try:
                    proc = subprocess.run([o.brickprof] + args, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, timeout=TIMEOUT_S,
                                          preexec_fn=limit_memory)
                    wrong = judge(proc)
                    if args[0] == "diff" and proc.returncode == 1:
                        wrong = None  # a regression verdict is an answer too
                except subprocess.TimeoutExpired:
                    wrong = "no answer in %d s" % TIMEOUT_S
                if known and wrong:
                    print("expected failure: brickprof %s: %s (%s)" % (shown, wrong, known))
                elif known:
                    print("UNEXPECTED PASS: brickprof %s (listed as: %s): remove it from "
                          "KNOWN_FAILURES" % (shown, known))
                    failures += 1
                elif wrong:
                    print("FAIL: brickprof %s: %s" % (shown, wrong))
                    failures += 1
                else:
                    print("ok: brickprof %s" % shown)
                sys.stdout.flush()
            if name == "deep":
                failures += check_folded_depth(o.brickprof, path, folder)
            os.unlink(path)
    finally:
        if not o.dir:
            shutil.rmtree(folder, ignore_errors=True)
    print("%d failures" % failures)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
