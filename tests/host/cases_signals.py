"""Host cases about signals and the standard descriptors: default actions,
handlers, ignored and blocked signals, signals from outside (also during the
trace write and past its deadline), SIGKILL, alarm(), SIGPIPE, closed
stdin/stdout/stderr."""
import signal

from case import BUSY_THREADS, Case, Step, has_scope, warned, warning_mentions
from cases_process import host

TERM, INT, HUP, QUIT, KILL = (int(s) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP,
                                               signal.SIGQUIT, signal.SIGKILL))


# Scopes recorded before the signal cases that act during the trace write:
# a JSON of about 50 MB, so the write lasts long enough (tenths of a
# second) for the harness to see it begin and act before it ends.
LONG_WRITE = "150000"


def after_ready(sig, to_group=False):
    return [Step("ready"), Step("signal", sig=sig, to_group=to_group)]


DEFAULT_ACTIONS = [
    host(f"signal-{name.lower()}-default", "signals", "signals", "raise", str(int(sig)),
         traces={"host_signals": 1}, checks=[warning_mentions("host_signals", name)],
         why=f"{name} raised by the program, default action: the trace is written")
    for name, sig in (("SIGTERM", TERM), ("SIGINT", INT), ("SIGHUP", HUP), ("SIGQUIT", QUIT))
]

SIGNALS = DEFAULT_ACTIONS + [
    host("signal-term-external", "signals", "signals", "wait", "4", steps=after_ready(TERM),
         agent_env=BUSY_THREADS,
         traces={"host_signals": 1}, checks=[has_scope("host_signals", "main")],
         why="SIGTERM from outside while 4 threads record"),
    host("signal-term-external-run", "signals", "signals", "wait", "4", via="run",
         agent_env=BUSY_THREADS,
         steps=after_ready(TERM), traces={"host_signals": 1},
         why="SIGTERM to the program brickprof run started"),
    host("signal-int-terminal", "signals", "signals", "wait", "2", via="run",
         agent_env=BUSY_THREADS,
         steps=after_ready(INT, to_group=True), traces={"host_signals": 1},
         why="Ctrl-C (SIGINT to the process group) under brickprof run"),
    host("signal-int-handled", "signals", "signals", "handle-int", steps=after_ready(INT),
         traces={"host_signals": 1}, checks=[has_scope("host_signals", "cleanup")],
         why="a program that handles SIGINT, cleans up and exits 0"),
    host("signal-int-handled-self", "signals", "signals", "handle-int", "self",
         traces={"host_signals": 1}, why="the same, SIGINT raised by the program"),
    host("signal-term-ignored", "signals", "signals", "ignore-term", traces={"host_signals": 1},
         why="a program that ignores SIGTERM, then raises it"),
    host("signal-term-ignored-inherited", "signals", "signals", "inherited-ignore",
         launch=["--ignore", str(TERM)], traces={"host_signals": 1},
         why="SIGTERM ignored by the parent (nohup-like) stays ignored"),
    host("signal-dispositions", "signals", "signals", "dispositions",
         why="what sigaction() reports for each signal is the program's own"),
    host("signal-siginfo-handler", "signals", "signals", "siginfo", traces={"host_signals": 1},
         why="an SA_SIGINFO handler for SIGTERM sees its sender"),
    host("signal-resethand", "signals", "signals", "resethand",
         why="SA_RESETHAND: the first SIGINT handled, the second kills"),
    host("signal-blocked", "signals", "signals", "blocked", traces={"host_signals": 1},
         why="SIGTERM blocked and pending, then unblocked"),
    host("signal-handler-exit", "signals", "signals", "handler-exits", "exit",
         agent_env=BUSY_THREADS,
         traces={"host_signals": 1}, why="a SIGTERM handler calls exit() while threads record"),
    host("signal-handler-_exit", "signals", "signals", "handler-exits", "_exit",
         agent_env=BUSY_THREADS,
         traces={"host_signals": 1}, why="a SIGTERM handler calls _exit() while threads record"),
    host("signal-segv-handler", "signals", "signals", "segv-handler",
         traces={"host_signals": 1}, why="the program's own SIGSEGV handler reports and _exits"),
    host("signal-kill", "signals", "signals", "wait", "2", steps=after_ready(KILL), traces={},
         agent_env=BUSY_THREADS,
         why="SIGKILL: no trace, nothing left behind"),
    host("signal-alarm", "signals", "signals", "alarm", traces={"host_signals": 1},
         why="alarm() the program set fires into its handler"),
    host("signal-alarm-across-exec", "signals", "signals", "alarm-exec",
         traces={"host_signals": 1}, why="a pending alarm() survives exec and kills the new image"),
    host("signal-during-dump", "signals", "signals", "long-write", LONG_WRITE,
         steps=[Step("write", agent_only=True), Step("signal", sig=TERM, agent_only=True)],
         also_statuses=(-TERM,), formats=(), traces=None, heavy=True,
         agent_env={"BRICKPROF_FORMATS": "json"},
         why="SIGTERM arrives while the trace is being written at exit"),
    host("signal-term-past-deadline", "signals", "signals", "wait", "0", LONG_WRITE, steps=[
        Step("ready"), Step("signal", sig=TERM), Step("write", agent_only=True),
        Step("stop", seconds=2.5, agent_only=True)], heavy=True, traces=None, formats=(),
        checks=[warned("BRICKPROF_SIGNAL_DUMP_SECONDS")],
        agent_env={"BRICKPROF_SIGNAL_DUMP_SECONDS": "1", "BRICKPROF_FORMATS": "json"},
        why="a SIGTERM write that misses BRICKPROF_SIGNAL_DUMP_SECONDS (process stopped)"),
    host("signal-term-then-exit", "signals", "signals", "term-then-exit",
         traces={"host_signals": 1}, checks=[warning_mentions("host_signals", "SIGTERM")],
         why="SIGTERM to a thread, exit() on main while its trace is written"),
    host("signal-term-then-_exit", "signals", "signals", "term-then-exit", "_exit",
         traces={"host_signals": 1}, checks=[warning_mentions("host_signals", "SIGTERM")],
         why="SIGTERM to a thread, _exit() on main while its trace is written"),
    Case("signal-sigpipe", "signals",
         ["bash", "-c", '"$0" sigpipe | head -n 3; echo "writer: ${{PIPESTATUS[0]}}"',
          "{bin}/host_signals"],
         traces={"*": None}, why="stdout a pipe closed early: the writer dies of SIGPIPE"),
]

STDIO = [
    host("stdio-closed-stdin", "stdio", "stdio", "read-stdin", launch=["--close", "0"],
         traces={"host_stdio": 1}, why="stdin closed: reads still fail with EBADF"),
    host("stdio-stdin-data", "stdio", "stdio", "copy-stdin", stdin=bytes(range(256)) * 512,
         traces={"host_stdio": 1}, why="128 KiB of binary stdin copied to stdout"),
    host("stdio-closed-stdout", "stdio", "stdio", "writers", "2", launch=["--close", "1"],
         agent_env=BUSY_THREADS,
         traces={"host_stdio": 1},
         why="stdout closed, threads writing to fd 1 while the trace is written"),
    host("stdio-closed-stderr", "stdio", "stdio", "writers", "2", launch=["--close", "2"],
         agent_env=BUSY_THREADS,
         traces={"host_stdio": 1},
         why="stderr closed, threads writing to fd 2 while the trace is written"),
    host("stdio-closed-all", "stdio", "stdio", "writers", "2",
         agent_env=BUSY_THREADS,
         launch=["--close", "0", "--close", "1", "--close", "2"], traces={"host_stdio": 1},
         why="stdin, stdout and stderr closed, threads writing to 1 and 2"),
]

CASES = SIGNALS + STDIO
