"""Host cases about processes and threads: threads, fork, exec, spawn,
system/popen and every way out of a process."""
from case import Case, has_scope, stdout_says, warning_mentions


def host(name, group, program, *args, **kw):
    return Case(name=name, group=group, argv=["{bin}/host_" + program] + list(args), **kw)


THREADS = [
    host("threads-short-lived", "threads", "threads", "short", "2000", "3",
         traces={"host_threads": 1}, checks=[has_scope("host_threads", "worker")],
         why="2000 threads, one after another, each recording"),
    host("threads-short-lived-run", "threads", "threads", "short", "500", "3", via="run",
         traces={"host_threads": 1}, why="the same through brickprof run"),
    host("threads-long-lived", "threads", "threads", "long", "8", "20000",
         traces={"host_threads": 1}, checks=[has_scope("host_threads", "worker")],
         why="8 threads recording side by side"),
    host("threads-alive-at-exit", "threads", "threads", "alive-at-exit", "4",
         traces={"host_threads": 1}, checks=[has_scope("host_threads", "main")],
         why="main returns while 4 threads record"),
    host("threads-detached-finished", "threads", "threads", "detached", "16", "wait",
         traces={"host_threads": 1}, checks=[has_scope("host_threads", "worker")],
         why="16 detached threads that finished"),
    host("threads-detached-running", "threads", "threads", "detached", "16",
         traces={"host_threads": 1}, why="main returns while 16 detached threads record"),
    host("threads-cancelled", "threads", "threads", "cancelled",
         traces={"host_threads": 1}, checks=[has_scope("host_threads", "cancelled")],
         why="a thread cancelled with a scope open"),
]

FORKS = [
    host("fork-child-records", "fork", "forks", "child-records", traces={"host_forks": 2},
         why="a forked child records and exits"),
    host("fork-child-silent", "fork", "forks", "child-silent", traces={"host_forks": 1},
         why="a forked child that records nothing leaves no trace"),
    host("fork-child-_exit", "fork", "forks", "child-_exit", traces={"host_forks": 2},
         why="a forked child records and leaves by _exit"),
    host("fork-exec", "fork", "forks", "exec-after-fork", traces={"host_forks": 3},
         why="a forked child records, then execs a program that records"),
    host("fork-many", "fork", "forks", "many", "16", traces={"host_forks": 17},
         why="16 children recording at once"),
    host("fork-from-threads", "fork", "forks", "fork-from-threads", "4", "20",
         traces={"host_forks": 21},
         why="20 forks while 4 threads record (locks held at fork)"),
    host("fork-vfork-exec", "spawn", "forks", "vfork-exec", traces={"host_forks": 2},
         why="vfork, then exec of a program that records"),
    host("fork-vfork-_exit", "spawn", "forks", "vfork-_exit", traces={"host_forks": 1},
         why="vfork, then _exit"),
    host("fork-posix_spawn", "spawn", "forks", "posix_spawn", traces={"host_forks": 2},
         why="posix_spawn of a program that records"),
    host("fork-posix_spawnp", "spawn", "forks", "posix_spawnp",
         traces={"host_forks": 1, "*": None}, why="posix_spawnp of a shell"),
    host("fork-system", "spawn", "forks", "system", traces={"host_forks": 1, "*": None},
         why="system() running a shell that writes to stdout and stderr"),
    host("fork-system-run", "spawn", "forks", "system", via="run", traces={"host_forks": 1},
         why="the same through brickprof run: the shell leaves no trace"),
    host("fork-popen", "spawn", "forks", "popen", traces={"host_forks": 1, "*": None},
         why="popen() for reading and for writing"),
]

EXEC_FORMS = ["execv", "execve", "execvp", "execvpe", "execl", "execlp", "execle", "fexecve",
              "execveat"]

EXECS = [
    host(f"exec-{form}", "exec", "execs", form, traces={"host_execs": 2},
         checks=[has_scope("host_execs", "exec target")],
         why=f"{form} of a program that records, after recording") for form in EXEC_FORMS
] + [
    host("exec-execv-run", "exec", "execs", "execv", via="run", traces={"host_execs": 2},
         why="execv through brickprof run"),
    host("exec-fail-missing", "exec", "execs", "fail-missing", traces={"host_execs": 1},
         checks=[has_scope("host_execs", "after failed exec")],
         why="an exec of a missing file fails; the program records on"),
    host("exec-fail-noexec", "exec", "execs", "fail-noexec", traces={"host_execs": 1},
         checks=[has_scope("host_execs", "after failed exec")],
         why="an exec the kernel refuses (ENOEXEC); the pre-exec trace is replaced"),
    host("exec-chain", "exec", "execs", "chain", "3", traces={"host_execs": 4},
         why="a program execs itself three times, recording each time"),
    host("exec-empty-environment", "exec", "execs", "empty-environment",
         traces={"host_execs": 1}, why="an exec with no environment: the new image runs bare"),
    Case("exec-shell-shim", "exec",
         ["{src}/shim_outer.sh", "{bin}/host_records", "scopes", "100"],
         traces={"host_records": 1, "*": None},
         why="bash scripts exec'ing each other, then the real program"),
    Case("exec-shell-shim-run", "exec",
         ["{src}/shim_outer.sh", "{bin}/host_records", "scopes", "100"], via="run",
         traces={"host_records": 1},
         why="the shim chain through brickprof run: only the program's trace"),
]

EXITS = [
    host("exit-return", "exit", "exits", "return", "0", traces={"host_exits": 1},
         why="return 0 from main"),
    host("exit-return-status", "exit", "exits", "return", "7", traces={"host_exits": 1},
         why="return 7 from main"),
    host("exit-exit", "exit", "exits", "exit", "4", traces={"host_exits": 1},
         checks=[stdout_says("atexit handler ran")], why="exit(4), with an atexit handler"),
    host("exit-_exit", "exit", "exits", "_exit", "5", traces={"host_exits": 1},
         checks=[has_scope("host_exits", "before leaving")], why="_exit(5): atexit skipped"),
    host("exit-_Exit", "exit", "exits", "_Exit", "6", traces={"host_exits": 1},
         why="_Exit(6)"),
    host("exit-quick_exit", "exit", "exits", "quick_exit", "8", traces={"host_exits": 1},
         checks=[stdout_says("at_quick_exit handler ran")],
         why="quick_exit(8), with an at_quick_exit handler"),
    host("exit-exit_group", "exit", "exits", "exit_group", "9", traces={},
         why="the raw exit_group system call: no trace, nothing runs after it"),
    host("exit-abort", "exit", "exits", "abort", traces={"host_exits": 1},
         checks=[warning_mentions("host_exits", "SIGABRT")], why="abort()"),
    host("exit-segv", "exit", "exits", "segv", traces={"host_exits": 1},
         checks=[warning_mentions("host_exits", "SIGSEGV")], why="a write through NULL"),
    host("exit-fpe", "exit", "exits", "fpe", traces={"host_exits": 1},
         checks=[warning_mentions("host_exits", "SIGFPE")], why="an integer division by zero"),
    host("exit-trap", "exit", "exits", "trap", traces={"host_exits": 1},
         checks=[warning_mentions("host_exits", "SIGILL")], why="an illegal instruction"),
    host("exit-sigbus", "exit", "exits", "sigbus", traces={"host_exits": 1},
         why="SIGBUS raised"),
    host("exit-from-thread", "exit", "exits", "from-thread", "6", traces={"host_exits": 1},
         checks=[has_scope("host_exits", "exiting thread")],
         why="exit(6) from a thread while main waits for it"),
    host("exit-while-recording", "exit", "exits", "while-recording", "0", "4",
         traces={"host_exits": 1}, why="exit(0) while 4 threads record"),
    host("exit-abort-run", "exit", "exits", "abort", via="run", traces={"host_exits": 1},
         why="abort() through brickprof run (exit 134)"),
]

CASES = THREADS + FORKS + EXECS + EXITS
