"""How a Python test reports what it found: failed checks collected into an
exit code, commands that must succeed, traces read back, and a skip (exit 77).

A script finds this module from its own folder, so it also runs by hand
(parents[N]: N folders up to tests/):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
"""
import gzip
import json
import subprocess
import sys

SKIP = 77  # meson's exit code for a skipped test
TAIL = 4000  # characters of a failed command's output shown

FAILURES = []


def check(ok, what):
    """Records `what` as a failure unless `ok`, and goes on; returns `ok`."""
    if not ok:
        FAILURES.append(what)
        print("FAIL: " + what, flush=True)
    return ok


def require(ok, what):
    """A check the rest of the test stands on: fails it at once unless `ok`."""
    if not ok:
        fail(what)


def fail(what):
    """Ends the test as failed."""
    print("FAIL: " + what, flush=True)
    sys.exit(1)


def summary():
    """Prints how many checks failed; returns the test's exit code."""
    print("%d failures" % len(FAILURES))
    return 1 if FAILURES else 0


def skip(reason):
    """Ends the test as skipped."""
    print("SKIP: " + reason, flush=True)
    sys.exit(SKIP)


def run(args, timeout=240, ok_codes=(0,), env=None):
    """Runs a command to its end (text output captured); fails the test if it
    hangs or exits with a code not in `ok_codes` (None: any code is an answer)."""
    args = [str(a) for a in args]
    shown = " ".join(args)
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        fail("%s: no answer in %s s" % (shown, timeout))
    if ok_codes is not None and r.returncode not in ok_codes:
        output = r.stdout[-TAIL:] + r.stderr[-TAIL:]
        fail(("%s: exit %d\n%s" % (shown, r.returncode, output)).rstrip())
    return r


def load_json(path):
    """A JSON file, gzip-compressed where its name ends in .gz."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)
