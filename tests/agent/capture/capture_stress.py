#!/usr/bin/env python3
"""Capture windows toggled 10^4 times while other threads launch, on the
fake driver under the agent, in both window modes: the program finishes
(the caller's timeout catches a deadlock) with its own exit status and
output, every window is in the trace, and CUPTI's records were switched
off between them.
  capture_stress.py APP AGENT FAKE_CUDA_DIR OUT_DIR [TOGGLES] [LAUNCHERS]"""
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "support"))
from checks import check, load_json, summary  # noqa: E402


def main():
    app, agent, fake_dir, out_dir = sys.argv[1:5]
    toggles = int(sys.argv[5]) if len(sys.argv) > 5 else 10000
    launchers = sys.argv[6] if len(sys.argv) > 6 else "3"
    os.makedirs(out_dir, exist_ok=True)
    for mode, capture in (("scope", "scope:window"), ("profiler", "cuda-profiler-api")):
        out = os.path.join(out_dir, "stress-" + mode)
        env = dict(os.environ, LD_LIBRARY_PATH=fake_dir, LD_PRELOAD=os.path.abspath(agent),
                   BRICKPROF_CAPTURE=capture, BRICKPROF_OUTPUT=out, BRICKPROF_FORMATS="json")
        r = subprocess.run([app, mode, str(toggles), launchers], env=env,
                           capture_output=True, text=True)
        if not check(r.returncode == 0, f"{mode}: exit {r.returncode}: {r.stderr[-2000:]}"):
            continue
        check(r.stdout.startswith(f"{toggles} windows"), f"{mode}: output {r.stdout!r}")
        d = load_json(out + ".json")["diagnostics"]
        windows, off = len(d["capture_windows"]), d.get("activity_off", [])
        print(f"{mode}: {windows} windows, CUPTI records off {len(off)} times; {d['capture']}")
        check(windows == toggles, f"{mode}: {windows} windows in the trace, {toggles} opened")
        check(len(off) >= 2, f"{mode}: CUPTI's records were off {len(off)} times")
        check(not r.stderr.strip(), f"{mode}: stderr {r.stderr[-2000:]}")
    sys.exit(summary())


if __name__ == "__main__":
    main()
