"""A fork while another thread adds a stack to the agent's Python stack
table: a thread launches from code objects the table has not seen (each
launch takes the table's lock to add its stack, with the GIL released:
ctypes.CDLL), while the main thread forks; each child launches from new
code too, so it takes the same lock. A child that finds the lock held by a
thread it does not have waits forever; the parent counts the children that
did not end within a bound. (The fake driver keeps working in a fork child;
a real CUDA context is not usable there, but the agent's lock must not be
what stops a child.)

  python_fork.py FORKS
Prints "ok" and exits 0, or how many children hung and exits 1."""
import ctypes
import os
import signal
import sys
import threading
import time

PTX = (b".version 8.0\n.target sm_90\n.address_size 64\n\n"
       b".visible .entry fork_kernel()\n{\n\tret;\n}\n\0")
cuda = ctypes.CDLL("libcuda.so.1")  # releases the GIL during each call


def check(result, what):
    if result != 0:
        print(f"{what} failed: {result}", file=sys.stderr)
        sys.exit(1)


def new_launcher(i):
    """A function of its own file and line: a stack the table has not seen."""
    source = "def launch(cuda, f):\n" + "\n" * (i % 4000) + \
        "    cuda.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, None, None, None)\n"
    space = {}
    exec(compile(source, f"generated_{i}.py", "exec"), space)
    return space["launch"]


def main():
    forks = int(sys.argv[1])
    check(cuda.cuInit(0), "cuInit")
    device = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuCtxCreate_v4(ctypes.byref(ctx), None, 0, device), "cuCtxCreate")
    module, f = ctypes.c_void_p(), ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), PTX), "cuModuleLoadData")
    check(cuda.cuModuleGetFunction(ctypes.byref(f), module, b"fork_kernel"), "cuModuleGetFunction")
    stop = threading.Event()

    def adder():
        check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        i = 0
        while not stop.is_set():
            new_launcher(i)(cuda, f)
            i += 1

    thread = threading.Thread(target=adder)
    thread.start()
    hung = 0
    for n in range(forks):
        pid = os.fork()
        if pid == 0:
            cuda.cuCtxSetCurrent(ctx)
            new_launcher(100000 + n)(cuda, f)
            os._exit(0)
        deadline = time.monotonic() + 3
        while os.waitpid(pid, os.WNOHANG)[0] == 0:
            if time.monotonic() > deadline:
                hung += 1
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.005)
    stop.set()
    thread.join()
    if hung:
        print(f"{hung} of {forks} fork children hung", file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
