"""Runs one command of a host case and records what the host did: exit
status (or signal), stdout, stderr, peak memory, and whether it had to be
killed. The process gets a session of its own so that it, and everything it
started, can be signalled and cleaned up as one; the case's steps (wait for
"ready", send a signal, wait until the trace write has begun, stop the
process for a while) run while it is alive."""
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

POLL_S = 0.001
# Held while a process is started (Popen returns once the child has exec'd)
# and while a case writes an executable: a child forked by another thread
# holds every open descriptor until its exec, and an exec of a file still
# open for writing anywhere fails with ETXTBSY.
SPAWN_LOCK = threading.Lock()
# Processes of the session still alive this long after the program ended
# are left behind by it: they are killed and reported.
STRAGGLER_GRACE_S = 2.0


@dataclass
class Outcome:
    status: int  # as subprocess reports it: negative for a signal
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    maxrss_kb: int = 0
    pid: int = 0  # the process the harness started
    left_running: int = 0  # processes of its session alive after it ended
    missed_steps: list = field(default_factory=list)  # steps the run ended before


@dataclass
class Step:
    """One thing to do while the case runs. `what` is "ready" (wait for a
    line "ready" on stdout), "write" (wait until the output folder, empty
    until the agent writes, holds a file: the trace write has begun, into
    a temporary file), "signal" (send `sig` to the
    program, or with to_group=True to its whole session, as a terminal
    would), or "stop" (SIGSTOP the program for `seconds`, then SIGCONT).
    A wait the run ends before is noted; with agent_only=True the step is
    skipped in runs without the agent."""
    what: str
    sig: int = 0
    seconds: float = 0.0
    to_group: bool = False
    agent_only: bool = False


def spawn(argv, **kw):
    """subprocess.Popen under SPAWN_LOCK: how every process is started."""
    with SPAWN_LOCK:
        return subprocess.Popen(argv, **kw)


class _Reader(threading.Thread):
    def __init__(self, pipe):
        super().__init__(daemon=True)
        self.pipe = pipe
        self.data = bytearray()
        self.lock = threading.Lock()

    def run(self):
        while chunk := self.pipe.read1(65536):
            with self.lock:
                self.data += chunk

    def snapshot(self):
        with self.lock:
            return bytes(self.data)


def _session_members(sid):
    """Live (not zombie) processes of session `sid`."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if fields[0] != b"Z" and int(fields[3]) == sid:
            members.append(int(entry))
    return members


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def _holds_a_file(folder):
    try:
        return bool(os.listdir(folder))
    except OSError:
        return False


def _signal(pid, sig):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def run(argv, env, cwd, timeout, stdin=None, steps=(), with_agent=False, via_run=False,
        watch=None):
    """Runs argv and returns its Outcome. `via_run`: argv starts `brickprof
    run`, so signals meant for the program go to brickprof's child. `watch`:
    the folder the "write" step looks at."""
    proc = spawn(argv, env=env, cwd=cwd, start_new_session=True,
                 stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    readers = [_Reader(proc.stdout), _Reader(proc.stderr)]
    for r in readers:
        r.start()
    if stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True).start()

    def program_pid():
        if not via_run:
            return proc.pid
        kids = _children(proc.pid)
        return kids[0] if kids else proc.pid

    pending = [s for s in steps if with_agent or not s.agent_only]
    deadline = time.monotonic() + timeout
    timed_out, status, rusage = False, None, None
    stop_until = None
    while status is None:
        pid, raw, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            status, rusage = raw, usage
            break
        now = time.monotonic()
        if now > deadline:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            _, status, rusage = os.wait4(proc.pid, 0)
            break
        if stop_until is not None:
            if now >= stop_until:
                _signal(program_pid(), signal.SIGCONT)
                stop_until = None
        elif pending:
            step = pending[0]
            if step.what == "ready":
                done = b"ready\n" in readers[0].snapshot()
            elif step.what == "write":
                done = _holds_a_file(watch)
            elif step.what == "signal":
                if step.to_group:
                    os.killpg(proc.pid, step.sig)
                else:
                    _signal(program_pid(), step.sig)
                done = True
            elif step.what == "stop":
                _signal(program_pid(), signal.SIGSTOP)
                stop_until = now + step.seconds
                done = True
            else:
                raise ValueError(f"unknown step {step.what}")
            if done:
                pending.pop(0)
                continue
        time.sleep(POLL_S)
    proc.returncode = os.waitstatus_to_exitcode(status)
    left = _session_members(proc.pid)
    grace_end = time.monotonic() + STRAGGLER_GRACE_S
    while left and time.monotonic() < grace_end:
        time.sleep(0.02)
        left = _session_members(proc.pid)
    for pid in left:
        _signal(pid, signal.SIGKILL)
    for r in readers:
        r.join(timeout=5)
    for pipe in (proc.stdout, proc.stderr, proc.stdin):
        if pipe:
            pipe.close()
    return Outcome(status=proc.returncode, stdout=readers[0].snapshot(),
                   stderr=readers[1].snapshot(), timed_out=timed_out,
                   maxrss_kb=rusage.ru_maxrss if rusage else 0, pid=proc.pid,
                   left_running=len(left), missed_steps=[s.what for s in pending])


def _feed(pipe, data):
    try:
        pipe.write(data)
        pipe.close()
    except OSError:
        pass  # the program did not read it all: its business
