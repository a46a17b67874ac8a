"""Host cases for program shapes that meet the agent's exit write in odd
places: a watchdog's SIGALRM handler that _exits while the interrupted code
holds malloc's lock; a dying signal on a thread with a stack of a few KiB."""
from case import warning_mentions
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

CASES = WATCHDOGS + STACKS
