"""What recording the Python stack adds to one kernel launch, on the fake
driver and fake CUPTI (tests/fakes/cuda_driver): a Python loop launches empty
kernels through ctypes from the bottom of a stack DEPTH frames deep, the GIL
held (ctypes.PyDLL, as a CUDA extension that keeps it) or released
(ctypes.CDLL, as PyTorch's op bindings release it), in child processes under
the agent, alternating BRICKPROF_PYTHON_DEPTH=0 (frames off) with frames on,
round by round. on - off is the stack's cost per launch; the ctypes call, the
fake driver, the fake CUPTI and the rest of the agent are in both.

  python_frames.py AGENT FAKE_CUDA_DIR [--rounds N] [--launches N] [--depths 10,50]
                   [--gil held,released] [--python PYTHON]
  python_frames.py --child DEPTH LAUNCHES GIL   (one timed loop; prints ns per launch)
"""
import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

PTX = b".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry empty_kernel()\n{\n\tret;\n}\n\0"
WARMUP = 20_000


def child(depth, launches, gil):
    cuda = (ctypes.PyDLL if gil == "held" else ctypes.CDLL)("libcuda.so.1")
    device, ctx, module, f = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    for result in (cuda.cuInit(0), cuda.cuDeviceGet(ctypes.byref(device), 0),
                   cuda.cuCtxCreate_v4(ctypes.byref(ctx), None, 0, device),
                   cuda.cuModuleLoadData(ctypes.byref(module), PTX),
                   cuda.cuModuleGetFunction(ctypes.byref(f), module, b"empty_kernel")):
        if result != 0:
            sys.exit(f"python_frames: the fake driver refused to start ({result})")
    launch = cuda.cuLaunchKernel

    def loop(n):
        for _ in range(n):
            launch(f, 1, 1, 1, 32, 1, 1, 0, None, None, None)

    def at_depth(levels, n):
        # One frame per level: the stack at each launch is <module>, main,
        # child, `levels` of these and loop.
        if levels > 1:
            return at_depth(levels - 1, n)
        loop(n)

    levels = max(1, depth - 4)
    at_depth(levels, WARMUP)
    start = time.thread_time_ns()
    at_depth(levels, launches)
    print((time.thread_time_ns() - start) / launches)


def run_child(args, depth, gil, frames_on, out_dir):
    env = dict(os.environ,
               LD_PRELOAD=args.agent,
               LD_LIBRARY_PATH=args.fake_cuda_dir,
               BRICKPROF_OUTPUT=os.path.join(out_dir, "trace-%p"),
               BRICKPROF_FORMATS="json",
               BRICKPROF_PYTHON_DEPTH="64" if frames_on else "0")
    out = subprocess.run([args.python, __file__, "--child", str(depth), str(args.launches), gil],
                         env=env, check=True, capture_output=True, text=True).stdout
    for name in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, name))
    return float(out.split()[-1])


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("agent")
    p.add_argument("fake_cuda_dir")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--launches", type=int, default=100_000)
    p.add_argument("--depths", default="10,50")
    p.add_argument("--gil", default="held,released", help="held (PyDLL), released (CDLL)")
    p.add_argument("--python", default=sys.executable, help="the interpreter of the children")
    args = p.parse_args()
    depths = [int(d) for d in args.depths.split(",")]
    gils = args.gil.split(",")
    cases = [(d, g) for d in depths for g in gils]
    off = {c: [] for c in cases}
    on = {c: [] for c in cases}
    with tempfile.TemporaryDirectory() as out_dir:
        for _ in range(args.rounds):
            for d, g in cases:
                off[(d, g)].append(run_child(args, d, g, False, out_dir))
                on[(d, g)].append(run_child(args, d, g, True, out_dir))
    version = subprocess.run([args.python, "-c", "import sys; print(sys.version.split()[0])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    print(f"CPython {version}, {args.rounds} rounds of {args.launches} launches "
          "(thread CPU time, ns per launch)")
    print("depth  GIL       frames off  frames on  on - off (median of per-round differences)")
    for d, g in cases:
        diff = statistics.median(b - a for a, b in zip(off[(d, g)], on[(d, g)]))
        print(f"{d:5}  {g:8}  {statistics.median(off[(d, g)]):10.0f}  "
              f"{statistics.median(on[(d, g)]):9.0f}  {diff:8.0f}")


if __name__ == "__main__":
    main()
