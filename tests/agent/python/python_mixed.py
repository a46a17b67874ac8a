"""GPU work launched from Python both outside every scope and inside
brickprof scopes (the scope API through ctypes, tests/host/programs/bp.py),
from several threads, for the test that the agent's exit files (tree, DOT,
folded, Chrome, Perfetto) group it under its Python frames as `brickprof
report` does from the JSON: a loop at one line, broken by a scope between
two runs of it, and a thread of its own.
Prints "ok" and exits 0, or names the failing call and exits 1."""
import ctypes
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "host", "programs"))
import bp  # noqa: E402

PTX = (b".version 8.0\n.target sm_90\n.address_size 64\n\n"
       b".visible .entry mixed_kernel()\n{\n\tret;\n}\n\0")
cuda = ctypes.CDLL("libcuda.so.1")


def check(result, what):
    if result != 0:
        print(f"{what} failed: {result}", file=sys.stderr)
        sys.exit(1)


def launch(f, grid):
    check(cuda.cuLaunchKernel(f, grid, 1, 1, 64, 1, 1, 0, None, None, None), "launch")


def steps(f, n, grid):
    for _ in range(n):
        launch(f, grid)


def worker(ctx, f):
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    steps(f, 20, 3)
    with bp.scope("worker step"):
        steps(f, 5, 4)
    steps(f, 20, 3)


def main():
    check(cuda.cuInit(0), "cuInit")
    device, ctx = ctypes.c_int(), ctypes.c_void_p()
    module, f = ctypes.c_void_p(), ctypes.c_void_p()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    check(cuda.cuCtxCreate_v4(ctypes.byref(ctx), None, 0, device), "cuCtxCreate")
    check(cuda.cuModuleLoadData(ctypes.byref(module), PTX), "cuModuleLoadData")
    check(cuda.cuModuleGetFunction(ctypes.byref(f), module, b"mixed_kernel"), "function")
    steps(f, 10, 1)
    with bp.scope("prefill"):
        steps(f, 3, 2)
    bp.record("between", 2)
    steps(f, 10, 1)
    t = threading.Thread(target=worker, args=(ctx, f))
    t.start()
    steps(f, 10, 1)
    t.join()
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    print("ok")


if __name__ == "__main__":
    main()
