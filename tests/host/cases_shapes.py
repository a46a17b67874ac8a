"""Host cases for program shapes that meet the agent's exit write in odd
places: a watchdog's SIGALRM handler that _exits while the interrupted code
holds malloc's lock."""
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

CASES = WATCHDOGS
