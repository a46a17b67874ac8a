"""The report views as `brickprof report --help` lists them, for the tests
that run every view: a new registry entry is covered without editing them."""
import re
import subprocess

# report's options that are not views.
NOT_VIEWS = {"help", "under", "python-frames", "peak-gflops", "peak-gbps", "link-gbps", "json", "out",
             "html", "quiet"}


def report_views(brickprof):
    """(switches, valued, no_json): view names in registry order; views chosen
    by an option with values (--what-if NAME=K); views without a JSON form."""
    text = subprocess.run([brickprof, "report", "--help"], capture_output=True, check=True,
                          text=True).stdout
    switches, valued, no_json = [], [], set()
    for m in re.finditer(r"^\s+(?:-\w,)?--([a-z][a-z-]*)( \S+)?", text, re.M):
        name, takes_value = m.group(1), m.group(2)
        if name in NOT_VIEWS:
            continue
        (valued if takes_value else switches).append(name)
    for name in switches:
        # Rejected before any file is read: the file need not exist.
        probe = subprocess.run([brickprof, "report", "--json", "--" + name, "none.json"],
                               capture_output=True, text=True)
        if "has no --json form" in probe.stderr:
            no_json.add(name)
    if not switches:
        raise SystemExit("no views in `brickprof report --help`")
    return switches, valued, no_json
