#!/usr/bin/env python3
"""Python under the agent handles its signals as without it.

CPython installs its KeyboardInterrupt handler only where it finds SIGINT at
SIG_DFL, reports every signal's disposition through signal.getsignal, and
multiprocessing's forkserver saves and restores those dispositions in its
workers. Each case runs a Python program with and without the agent
(LD_PRELOAD) and wants the same output and exit status; a case that hangs
fails after its timeout.

usage: python_signals.py AGENT [PYTHON...]
(default: /usr/bin/python3, and the `python3` on PATH when it is another
program, such as a pyenv shim that execs the real interpreter)
"""
import json
import os
import subprocess
import sys
import tempfile

TIMEOUT_S = 120

GETSIGNAL_ALL = """
import signal
for s in sorted(signal.valid_signals()):
    try:
        print(int(s), repr(signal.getsignal(s)))
    except (ValueError, OSError) as e:
        print(int(s), type(e).__name__)
"""

# signal.signal returns the old handler, and SIG_DFL set again reads SIG_DFL.
SET_AND_RESET = """
import signal
print(repr(signal.signal(signal.SIGINT, signal.SIG_DFL)))
print(repr(signal.getsignal(signal.SIGINT)))
def handler(sig, frame): pass
for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
    print(signal.signal(s, handler) is signal.SIG_DFL, signal.signal(s, signal.SIG_IGN) is handler)
    print(repr(signal.signal(s, signal.SIG_DFL)), repr(signal.getsignal(s)))
"""

# Ctrl-C (kill -INT) raises KeyboardInterrupt and the cleanup runs.
SIGINT_CAUGHT = """
import os, signal, time
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(30)
    print("slept")
except KeyboardInterrupt:
    print("cleanup ran")
"""

# Uncaught, the finally block runs and Python dies of SIGINT.
SIGINT_UNCAUGHT = """
import os, signal, time
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(30)
finally:
    print("finally ran", flush=True)
"""

# A handler the program installs runs, and its return value is used.
HANDLER_RUNS = """
import os, signal, sys
def on_term(sig, frame):
    print("handler ran")
    sys.exit(3)
signal.signal(signal.SIGTERM, on_term)
os.kill(os.getpid(), signal.SIGTERM)
signal.pause()
"""

POOL = """
import multiprocessing as mp
if __name__ == "__main__":
    with mp.get_context("{method}").Pool(2) as pool:
        print(pool.map(abs, [-1, -2, -3, -4]))
"""


def run(python, code, env, out_dir):
    try:
        p = subprocess.run([python, "-c", code], env=env, cwd=out_dir, capture_output=True,
                           text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None
    return p.returncode, p.stdout


def traces(out_dir):
    found = []
    for name in os.listdir(out_dir):
        if name.endswith(".json"):
            with open(os.path.join(out_dir, name)) as f:
                found.append(json.load(f))
    return found


def python3_on_path():
    """The python3 a user's shell runs: a script that execs the interpreter
    (a pyenv shim) if PATH has one, else the first python3 on it."""
    found = [os.path.join(d, "python3") for d in os.environ.get("PATH", "").split(os.pathsep)]
    found = [p for p in found if os.path.isfile(p) and os.access(p, os.X_OK)]
    for p in found:
        with open(p, "rb") as f:
            if f.read(2) == b"#!":
                return p
    return found[0] if found else None


def main():
    agent = sys.argv[1]
    pythons = sys.argv[2:]
    if not pythons:
        pythons = [p for p in ["/usr/bin/python3"] if os.access(p, os.X_OK)]
        on_path = python3_on_path()
        if on_path and os.path.realpath(on_path) not in map(os.path.realpath, pythons):
            pythons.append(on_path)
    if not pythons:
        print("no python3 to test")
        return 77
    cases = [("getsignal of every signal", GETSIGNAL_ALL, None),
             ("set and reset", SET_AND_RESET, None),
             ("SIGINT caught as KeyboardInterrupt", SIGINT_CAUGHT, None),
             ("SIGINT uncaught", SIGINT_UNCAUGHT, "killed by SIGINT"),
             ("handler runs", HANDLER_RUNS, None)]
    cases += [(f"pool with {m}", POOL.format(method=m), None)
              for m in ("forkserver", "spawn", "fork")]
    failed = 0
    for python in pythons:
        for name, code, trace_warning in cases:
            with tempfile.TemporaryDirectory() as out_dir:
                plain = run(python, code, dict(os.environ), out_dir)
                env = dict(os.environ, LD_PRELOAD=agent, BRICKPROF_FORMATS="json",
                           BRICKPROF_OUTPUT=os.path.join(out_dir, "%n-%p"))
                traced = run(python, code, env, out_dir)
                problem = None
                if traced is None:
                    problem = f"hung for {TIMEOUT_S} s under the agent"
                elif traced != plain:
                    problem = f"without the agent {plain!r}, with it {traced!r}"
                elif trace_warning:
                    said = [w for t in traces(out_dir) for w in t["diagnostics"]["warnings"]
                            if trace_warning in w]
                    if not said:
                        problem = f"no trace saying '{trace_warning}'"
            if problem:
                failed += 1
                print(f"FAIL {python}: {name}: {problem}")
            else:
                print(f"ok   {python}: {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
