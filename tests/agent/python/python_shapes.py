"""The shapes in which real programs launch GPU work from Python, on the fake
driver, for the Python-frames tests on every CPython the machine has
(python_versions_test.cpp): ctypes.PyDLL (the GIL held), ctypes.CDLL (the
GIL released) from two functions in two files, a C extension that releases
the GIL around cuLaunchKernel as PyTorch's op bindings do (called from a
method), threads launching at once with the GIL released while others hold
and release it, a generator, an async def coroutine, and a recursion deeper
than BRICKPROF_PYTHON_DEPTH.

Each launching line ends in "# launch-site: GRID NAME QUALNAME": its
kernel's grid x, which tells the test the launch's site, and the qualified
name of the function the line is in. "# recursion-site" marks the line the
recursion calls itself from.

  python_shapes.py EXTENSION_DIR
Prints "ok" and exits 0, or names the failing call and exits 1."""
import asyncio
import ctypes
import sys
import threading

import python_shapes_other

PTX = (b".version 8.0\n.target sm_90\n.address_size 64\n\n"
       b".visible .entry shape_kernel(\n\t.param .u64 p\n)\n{\n\tret;\n}\n\0")
REPEAT = 40
DEEP_LEVELS = 40  # deeper than the test's BRICKPROF_PYTHON_DEPTH
THREAD_LAUNCHES = 300

cuda = ctypes.PyDLL("libcuda.so.1")  # holds the GIL during each call
cuda_nogil = ctypes.CDLL("libcuda.so.1")  # releases it


def check(result, what):
    if result != 0:
        print(f"{what} failed: {result}", file=sys.stderr)
        sys.exit(1)


class Kernel:
    def __init__(self, ctx, f, pointer):
        self.ctx, self.f, self.pointer = ctx, f, pointer
        self.arg = ctypes.c_uint64(pointer.value)
        self.params = (ctypes.c_void_p * 1)(ctypes.addressof(self.arg))


def launch_held(k):
    check(cuda.cuLaunchKernel(k.f, 10, 1, 1, 128, 1, 1, 0, None, k.params, None), "pydll")  # launch-site: 10 pydll launch_held


def launch_released(k):
    check(cuda_nogil.cuLaunchKernel(k.f, 11, 1, 1, 128, 1, 1, 0, None, k.params, None), "cdll")  # launch-site: 11 cdll launch_released


class Model:
    def __init__(self, k, extension):
        self.k, self.extension = k, extension

    def forward(self):
        check(self.extension.launch(self.k.f.value, 13, self.k.pointer.value), "extension")  # launch-site: 13 extension Model.forward


def thread_a(k, ready):
    check(cuda_nogil.cuCtxSetCurrent(k.ctx), "cuCtxSetCurrent")
    ready.wait()
    for _ in range(THREAD_LAUNCHES):
        check(cuda_nogil.cuLaunchKernel(k.f, 20, 1, 1, 128, 1, 1, 0, None, k.params, None), "thread a")  # launch-site: 20 thread_a thread_a


def thread_b(k, ready):
    check(cuda_nogil.cuCtxSetCurrent(k.ctx), "cuCtxSetCurrent")
    ready.wait()
    for _ in range(THREAD_LAUNCHES):
        check(cuda_nogil.cuLaunchKernel(k.f, 21, 1, 1, 128, 1, 1, 0, None, k.params, None), "thread b")  # launch-site: 21 thread_b thread_b


def thread_c(k, ready):
    check(cuda_nogil.cuCtxSetCurrent(k.ctx), "cuCtxSetCurrent")
    ready.wait()
    for _ in range(THREAD_LAUNCHES):
        check(cuda_nogil.cuLaunchKernel(k.f, 22, 1, 1, 128, 1, 1, 0, None, k.params, None), "thread c")  # launch-site: 22 thread_c thread_c


def thread_held(k, ready):
    # Launches holding the GIL while the others launch without it.
    check(cuda.cuCtxSetCurrent(k.ctx), "cuCtxSetCurrent")
    ready.wait()
    for _ in range(THREAD_LAUNCHES):
        check(cuda.cuLaunchKernel(k.f, 23, 1, 1, 128, 1, 1, 0, None, k.params, None), "thread held")  # launch-site: 23 thread_held thread_held


def busy_python(ready, stop):
    # Takes and releases the GIL all the while: allocations, a collection.
    ready.wait()
    garbage = []
    while not stop.is_set():
        garbage = [[i] * 8 for i in range(200)]
        garbage.append(garbage)


def produce(k, n):
    for i in range(n):
        check(cuda_nogil.cuLaunchKernel(k.f, 30, 1, 1, 128, 1, 1, 0, None, k.params, None), "generator")  # launch-site: 30 generator produce
        yield i


async def step_async(k):
    await asyncio.sleep(0)
    check(cuda_nogil.cuLaunchKernel(k.f, 31, 1, 1, 128, 1, 1, 0, None, k.params, None), "coroutine")  # launch-site: 31 coroutine step_async


async def run_steps(k):
    for _ in range(3):
        await step_async(k)


def recurse(k, levels):
    if levels > 0:
        return recurse(k, levels - 1)  # recursion-site
    check(cuda_nogil.cuLaunchKernel(k.f, 40, 1, 1, 128, 1, 1, 0, None, k.params, None), "deep")  # launch-site: 40 deep recurse


def threads(k):
    ready = threading.Barrier(5)
    stop = threading.Event()
    busy = threading.Thread(target=busy_python, args=(ready, stop))
    workers = [threading.Thread(target=t, args=(k, ready))
               for t in (thread_a, thread_b, thread_c, thread_held)]
    busy.start()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    stop.set()
    busy.join()


def main():
    sys.path.insert(0, sys.argv[1])
    import brickprof_launch_ext

    check(cuda.cuInit(0), "cuInit")
    device = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuCtxCreate_v4(ctypes.byref(ctx), None, 0, device), "cuCtxCreate")
    module, f = ctypes.c_void_p(), ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), PTX), "cuModuleLoadData")
    check(cuda.cuModuleGetFunction(ctypes.byref(f), module, b"shape_kernel"), "cuModuleGetFunction")
    pointer = ctypes.c_uint64()
    check(cuda.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(4096)), "cuMemAlloc")
    k = Kernel(ctx, f, pointer)
    model = Model(k, brickprof_launch_ext)
    for _ in range(REPEAT):
        launch_held(k)
        launch_released(k)
        python_shapes_other.launch_from_other(cuda_nogil, k)
        model.forward()
    threads(k)
    for _ in produce(k, REPEAT):
        pass
    asyncio.run(run_steps(k))
    recurse(k, DEEP_LEVELS)
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    check(cuda.cuCtxDestroy_v2(ctx), "cuCtxDestroy")
    print("ok")


if __name__ == "__main__":
    main()
