"""Host cases in Python (no torch: threads, multiprocessing with each start
method, subprocess, asyncio, ctypes, signals, exits, Latin-1 argv, GPU work
on the fake driver with sub-interpreters and finalizers), recording through
ctypes (programs/bp.py, programs/fake_cuda.py)."""
from case import BUSY_THREADS, Case, has_scope, program_trace, stdout_says
from cases_signals import INT, TERM, after_ready


def py(name, script, *args, **kw):
    return Case(name=name, group="python", argv=["{py}", "{src}/" + script] + list(args), **kw)


# Both runs find the fake driver; the agent finds the fake CUPTI beside it.
FAKE_CUDA = {"LD_LIBRARY_PATH": "{fake_cuda}"}


def kernels_with_python_stacks(program, at_least):
    """Every kernel of the trace has its Python stack, or is counted in the
    warning that says why not; at least `at_least` have one."""
    def check(ctx):
        trace = program_trace(ctx, program)
        if trace is None:
            return [f"no single trace of {program}"]
        kernels = [n for n in trace.get("nodes", []) if n.get("kind") == "kernel"]
        with_stack = sum("python_stack" in n for n in kernels)
        counted = 0
        for w in trace.get("diagnostics", {}).get("warnings", []):
            if w.startswith("Python stacks not read for "):
                counted += int(w.split()[5])
        problems = []
        if with_stack < at_least:
            problems.append(f"{with_stack} of {len(kernels)} kernels have a Python stack, "
                            f"expected at least {at_least}")
        if with_stack + counted != len(kernels):
            problems.append(f"{len(kernels) - with_stack - counted} kernels without a Python "
                            "stack and not counted in a warning")
        return problems
    return check



POOL_TIMEOUT = "10"  # seconds a pool may take to answer before the program gives up

CASES = [
    py("python-threads", "py_threads.py", traces={"python3": 1},
       agent_env=BUSY_THREADS,
       checks=[has_scope("python3", "python thread")],
       why="8 threads recording, a daemon thread recording at exit"),
    py("python-pool-fork", "py_pool.py", "fork", POOL_TIMEOUT, traces={"python3": None},
       why="multiprocessing Pool, fork start method: maps and exits"),
    py("python-pool-spawn", "py_pool.py", "spawn", POOL_TIMEOUT, traces={"python3": None},
       why="multiprocessing Pool, spawn start method"),
    py("python-pool-spawn-run", "py_pool.py", "spawn", POOL_TIMEOUT, via="run",
       traces={"python3": None}, why="the spawn pool through brickprof run"),
    py("python-pool-forkserver", "py_pool.py", "forkserver", POOL_TIMEOUT,
       traces={"python3": None}, why="multiprocessing Pool, forkserver start method"),
    py("python-subprocess", "py_subprocess.py", traces={"python3": None, "*": None},
       why="subprocess.run, check_output, Popen with pipes"),
    py("python-asyncio", "py_asyncio.py", traces={"python3": 1},
       checks=[has_scope("python3", "async task")], why="asyncio tasks and an executor"),
    py("python-ctypes", "py_ctypes.py", traces={"python3": 1},
       checks=[has_scope("python3", "qsort callback")],
       why="ctypes: libc's qsort calling back into Python"),
    py("python-sys-exit", "py_exits.py", "sys.exit", traces={"python3": 1},
       why="sys.exit(7)"),
    py("python-os-_exit", "py_exits.py", "os._exit", traces={"python3": 1},
       checks=[has_scope("python3", "python main")], why="os._exit(5)"),
    py("python-exception", "py_exits.py", "exception", traces={"python3": 1},
       why="an uncaught exception: traceback, exit 1"),
    py("python-os-abort", "py_exits.py", "os.abort", traces={"python3": 1},
       why="os.abort()"),
    py("python-sigint-cleanup", "py_signals.py", "sigint", steps=after_ready(INT),
       traces={"python3": 1}, checks=[stdout_says("KeyboardInterrupt: cleanup ran")],
       why="kill -INT: KeyboardInterrupt, the cleanup line is printed"),
    py("python-sigint-cleanup-run", "py_signals.py", "sigint", via="run",
       steps=after_ready(INT, to_group=True), traces={"python3": 1},
       checks=[stdout_says("KeyboardInterrupt: cleanup ran")],
       why="Ctrl-C under brickprof run: the cleanup line is printed"),
    py("python-getsignal", "py_signals.py", "getsignal",
       why="signal.getsignal for every signal, as without the agent"),
    py("python-sig-dfl", "py_signals.py", "sig-dfl",
       why="getsignal after signal(SIGINT, SIG_DFL) reads SIG_DFL"),
    py("python-sigterm-handler", "py_signals.py", "sigterm-handler", steps=after_ready(TERM),
       traces={"python3": 1}, why="a SIGTERM handler that exits"),
    py("python-self-sigint", "py_signals.py", "self-sigint", traces={"python3": 1},
       why="os.kill(own pid, SIGINT) raises KeyboardInterrupt"),
    py("python-latin1-argv", "py_argv.py", b"caf\xe9", b"\xff\xfe na\xefve",
       why="Latin-1 bytes in argv reach Python unchanged"),
    py("python-subinterpreter-launches", "py_subinterpreter.py", env=FAKE_CUDA,
       needs=("fake-cuda",), traces={"python3": 1},
       checks=[kernels_with_python_stacks("python3", 800)],
       why="a sub-interpreter alive while threads launch, GIL released and held"),
    py("python-finalizers-in-launches", "py_finalizers.py", env=FAKE_CUDA,
       needs=("fake-cuda",), traces={"python3": 1},
       checks=[stdout_says("finalizers run inside launches: "),
               kernels_with_python_stacks("python3", 400)],
       why="gc.set_threshold(1) and cyclic garbage: no __del__ more inside launches"),
    Case("python-path-shim", "python", ["{shim_python}", "-c", "print('through a shim')"],
         needs=("shim-python",), traces={"python3": 1, "*": None},
         why="python3 through a version-manager shim found on PATH (bash scripts)"),
    Case("python-path-shim-run", "python", ["{shim_python}", "-c", "print('through a shim')"],
         via="run", needs=("shim-python",), traces={"python3": 1},
         why="the shim through brickprof run: only the Python process's trace"),
]
