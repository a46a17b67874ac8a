"""Code objects freed and made again at the same addresses, as a notebook's
cells or an exec loop make them: each round compiles the same cell under a
file name of its own ("<cell07>", the same length every round), runs it (it
launches one kernel whose grid x is the round + 1, from the cell's line 2)
and drops it, so the next round's code object, names and line table are
likely to take the freed ones' addresses (without the stack table's check
of what they hold, some kernels showed an earlier cell's name). Every kernel
must carry its own cell's file and line.

  python_cells.py ROUNDS
Prints "ok" and exits 0, or names the failing call and exits 1."""
import ctypes
import gc
import sys

PTX = (b".version 8.0\n.target sm_90\n.address_size 64\n\n"
       b".visible .entry cell_kernel()\n{\n\tret;\n}\n\0")
cuda = ctypes.CDLL("libcuda.so.1")


def check(result, what):
    if result != 0:
        print(f"{what} failed: {result}", file=sys.stderr)
        sys.exit(1)


def cell_source(round_):
    return f"def step(launch, f):\n    launch(f, {round_ + 1})\n\nstep(launch, f)\n"


def main():
    rounds = int(sys.argv[1])
    check(cuda.cuInit(0), "cuInit")
    device, ctx = ctypes.c_int(), ctypes.c_void_p()
    module, f = ctypes.c_void_p(), ctypes.c_void_p()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    check(cuda.cuCtxCreate_v4(ctypes.byref(ctx), None, 0, device), "cuCtxCreate")
    check(cuda.cuModuleLoadData(ctypes.byref(module), PTX), "cuModuleLoadData")
    check(cuda.cuModuleGetFunction(ctypes.byref(f), module, b"cell_kernel"), "function")

    def launch(function, grid):
        check(cuda.cuLaunchKernel(function, grid, 1, 1, 32, 1, 1, 0, None, None, None), "launch")

    for round_ in range(rounds):
        code = compile(cell_source(round_), f"<cell{round_:02d}>", "exec")
        exec(code, {"launch": launch, "f": f})
        del code
        gc.collect()
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    print("ok")


if __name__ == "__main__":
    main()
