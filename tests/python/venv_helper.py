"""A virtual environment for the tests that need packages from PyPI.

Made once per build folder (under a lock: tests run in parallel) and reused;
when PyPI cannot be reached the test is skipped (exit 77) with one line
that says so.
"""
import fcntl
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import skip  # noqa: E402


def python_with(folder, packages):
    """The python of a venv in `folder` that has `packages` installed."""
    os.makedirs(os.path.dirname(os.path.abspath(folder)) or ".", exist_ok=True)
    with open(folder + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        python = os.path.join(folder, "bin", "python")
        marker = os.path.join(folder, "brickprof-packages.txt")
        wanted = "\n".join(sorted(packages))
        if os.path.exists(marker) and open(marker).read() == wanted:
            return python
        if not os.path.exists(python):
            r = subprocess.run([sys.executable, "-m", "venv", folder], capture_output=True,
                               text=True)
            if r.returncode != 0:
                skip("cannot create a virtual environment (python3 -m venv): "
                     + r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "")
        r = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            "--timeout", "30"] + sorted(packages),
                           capture_output=True, text=True)
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["?"])[-1]
            skip("cannot install %s from PyPI (unreachable?): %s" % (" ".join(packages), last))
        with open(marker, "w") as f:
            f.write(wanted)
        return python
