"""Host cases for program shapes that meet the agent in odd places: a
watchdog's SIGALRM handler that _exits while the interrupted code holds
malloc's lock; a dying signal on a thread with a stack of a few KiB; an
MPI job with the agent in some ranks only."""
from case import Case, warning_mentions
from cases_process import host

# The write's deadline, short so that a case that needs it stays short.
DEADLINE = {"BRICKPROF_SIGNAL_DUMP_SECONDS": "2"}

WATCHDOGS = [
    host("watchdog-alarm-in-malloc", "watchdog", "watchdogs", "alarm-in-malloc",
         agent_env=DEADLINE, traces=None,
         why="alarm() into a handler that _exits 3 while main holds malloc's lock and "
             "a helper thread blocks every signal: exit 3 within the write's deadline"),
    host("watchdog-itimer-in-malloc", "watchdog", "watchdogs", "alarm-in-malloc", "itimer",
         agent_env=DEADLINE, traces=None,
         why="the same watchdog armed with setitimer(ITIMER_REAL)"),
]

STACKS = [
    host("stack-small-thread", "stacks", "stacks", "small-thread",
         traces={"host_stacks": 1}, checks=[warning_mentions("host_stacks", "SIGTERM")],
         why="SIGTERM to a thread with the smallest stack pthreads allows, most of it in use"),
    host("stack-go-like", "stacks", "stacks", "go-like",
         traces={"host_stacks": 1}, checks=[warning_mentions("host_stacks", "SIGTERM")],
         why="SIGTERM to a thread on an 8 KiB goroutine-like stack with a 32 KiB alternate "
             "signal stack, SA_ONSTACK added to handlers as Go's runtime does"),
]



def mpi_job(name, mode, traces, checks=(), why=""):
    return Case(name=name, group="mpi", argv=["bash", "{src}/mpi_ranks.sh", mode, "{mpi_app}"],
                via="wrapper", traces={"mpi_app": traces}, checks=list(checks), needs=("mpi",),
                why=why)


PARTIAL_PRELOAD = [
    mpi_job("mpi-partial-rank0", "rank0", 1,
            [warning_mentions("mpi_app", "ranks without it")],
            why="two ranks, the agent in rank 0 only (a wrapper script's choice)"),
    mpi_job("mpi-partial-rank1", "rank1", 1,
            [warning_mentions("mpi_app", "rank 0 has no brickprof agent")],
            why="two ranks, the agent in rank 1 only"),
    mpi_job("mpi-partial-mpmd", "mpmd", 1,
            [warning_mentions("mpi_app", "ranks without it")],
            why="an MPMD line: the first application context preloaded, the second not"),
    mpi_job("mpi-all-ranks", "all", 2, why="two ranks, both with the agent"),
]

CASES = WATCHDOGS + STACKS + PARTIAL_PRELOAD
