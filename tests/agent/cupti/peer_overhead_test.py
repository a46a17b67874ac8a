#!/usr/bin/env python3
"""The peer-overhead step of scripts/gpu-check (tests/gpu/
peer_overhead.py) on the fake driver: bricklayer's eager and graph decode
run plain and in every brickprof mode, each leaving a trace (the sampled
one with a capture window), and the table has a ratio in each of those
cells; the peers this machine lacks (Nsight Systems, PyTorch with CUDA)
are listed as not available, and the PyTorch profiler as not applicable
to bricklayer. Ratios are printed, not judged: no timing is asserted.
  peer_overhead_test.py HARNESS AGENT BRICKLAYER TORCH_SCRIPT OUT_DIR"""
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "support"))
from checks import check, summary  # noqa: E402

SMALL = ("--backend cuda --layers 2 --hidden 256 --heads 4 --kv-heads 2 --ffn 512 --vocab 512 "
         "--prompt 4 --tokens 6 --probe-seconds 0")


def main():
    harness, agent, bricklayer, torch_script, out = sys.argv[1:6]
    r = subprocess.run([sys.executable, harness, "--agent", agent, "--out", out, "--rounds", "2",
                        "--sample-every", "3",
                        f"eager=native:{bricklayer} {SMALL} --mode eager",
                        f"graph=native:{bricklayer} {SMALL} --mode graph",
                        f"torch=torch:{sys.executable} {torch_script} 4 1 64"],
                       capture_output=True, text=True)
    print(r.stdout, r.stderr)
    check(r.returncode == 0, f"harness exit {r.returncode}")
    rows = {line[:24].strip(): line[24:].split("  ") for line in r.stdout.splitlines()[2:]
            if line[:24].strip()}
    cells = {name: [c.strip() for c in row if c.strip()] for name, row in rows.items()}
    for mode in ("brickprof", "brickprof whole-graph", "brickprof sampled"):
        row = cells.get(mode, [])
        check(len(row) == 3 and all(c.replace(".", "").isdigit() for c in row[:2]),
              f"{mode}: cells {row}, want a ratio for eager and graph")
    if shutil.which("nsys") is None:
        for peer in ("nsys (graph nodes)", "nsys (whole graphs)"):
            check(cells.get(peer, [])[:1] == ["not available (no nsys on PATH)"],
                  f"{peer}: {cells.get(peer)}")
    torch_row = cells.get("torch profiler", [])
    check(torch_row[:2] == ["n/a (not a PyTorch program)"] * 2,
          f"torch profiler on bricklayer: {torch_row}")
    torch_cuda = subprocess.run([sys.executable, "-c", "import torch, sys; "
                                 "sys.exit(0 if torch.cuda.is_available() else 1)"],
                                capture_output=True).returncode == 0
    check(torch_cuda or (len(torch_row) == 3 and torch_row[2].startswith("not available")),
          f"torch column without PyTorch CUDA: {torch_row}")
    sys.exit(summary())


if __name__ == "__main__":
    main()
