"""GPU work launched while a sub-interpreter exists (once one exists,
CPython stops tracking which thread holds the GIL): threads of the main
interpreter launching with the GIL released (ctypes.CDLL) and with it held
(ctypes.PyDLL), and a thread launching from code it runs in the
sub-interpreter, all at once."""
import threading

import fake_cuda

try:
    import _interpreters as interpreters  # 3.13
except ImportError:
    import _xxsubinterpreters as interpreters

LAUNCHES = 200
IN_SUB = """
import sys
sys.path.insert(0, {path!r})
import fake_cuda
gpu = fake_cuda.Gpu(False, {ctx}, {f})
gpu.bind()
for _ in range({n}):
    gpu.launch()
"""


def create():
    try:
        return interpreters.create(isolated=False)  # 3.12: a legacy one can import ctypes
    except TypeError:
        return interpreters.create()


def launcher(gpu, ready):
    gpu.bind()
    ready.wait()
    for _ in range(LAUNCHES):
        gpu.launch()


def in_sub_interpreter(interp, code, ready):
    ready.wait()
    interpreters.run_string(interp, code)


def main():
    released, held = fake_cuda.Gpu(False), None
    held = fake_cuda.Gpu(True, released.ctx.value, released.f.value)
    interp = create()
    interpreters.run_string(interp, "import math; root = math.sqrt(2)")
    code = IN_SUB.format(path=fake_cuda.__file__.rsplit("/", 1)[0], ctx=released.ctx.value,
                         f=released.f.value, n=LAUNCHES)
    ready = threading.Barrier(5)
    threads = [threading.Thread(target=launcher, args=(g, ready))
               for g in (released, released, held, held)]
    threads.append(threading.Thread(target=in_sub_interpreter, args=(interp, code, ready)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    released.bind()
    released.finish()
    interpreters.destroy(interp)
    print(f"{5 * LAUNCHES} kernels launched with a sub-interpreter alive")


main()
