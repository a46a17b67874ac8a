#!/usr/bin/env python3
"""brickprof's words on a real terminal: every --help read in tmux panes of
80 and 60 columns (the width the terminal reports, no COLUMNS) has no line
longer than the pane; binary output (--perfetto) refuses a terminal with one
line and exit 2, and goes to a file or a pipe as asked.

usage: terminal_cli.py BRICKPROF TEST_DATA_DIR   (exit 77 when tmux is missing)
"""
import os
import pty
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import check, skip, summary  # noqa: E402

HELPS = [[], ["run"], ["report"], ["diff"], ["merge"], ["ptx"], ["view"]]
TIMEOUT = 60.0


def tmux(socket, *args):
    r = subprocess.run(["tmux", "-S", socket, "-f", "/dev/null", *args], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError("tmux %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def help_in_pane(brickprof, args, width, workdir):
    """The help as the pane shows it, wrapped lines joined back (capture-pane -J),
    so a line longer than the pane shows as one long line."""
    socket = os.path.join(workdir, "tmux-%d-%s.sock" % (width, "-".join(args) or "top"))
    done = os.path.join(workdir, "done")
    if os.path.exists(done):
        os.unlink(done)
    command = "%s %s --help; touch %s" % (brickprof, " ".join(args), done)
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("TMUX", None)
    env.pop("COLUMNS", None)
    subprocess.run(["tmux", "-S", socket, "-f", "/dev/null", "new-session", "-d", "-s", "t",
                    "-x", str(width), "-y", "200", "env", "-u", "COLUMNS", "LANG=C.UTF-8",
                    "LC_ALL=C.UTF-8", "TERM=screen-256color", "sh", "-c",
                    command + "; sleep 60"], env=env, check=True)
    try:
        deadline = time.monotonic() + TIMEOUT
        while not os.path.exists(done) and time.monotonic() < deadline:
            time.sleep(0.05)
        return tmux(socket, "capture-pane", "-p", "-J", "-t", "t")
    finally:
        subprocess.run(["tmux", "-S", socket, "kill-server"], capture_output=True)


def helps_fit(brickprof, workdir):
    for width in (80, 60):
        for args in HELPS:
            screen = help_in_pane(brickprof, args, width, workdir)
            check("Usage: brickprof" in screen, "%s --help at %d: no help shown:\n%s"
                  % (" ".join(args), width, screen))
            long = [line for line in screen.split("\n") if len(line) > width]
            check(not long, "%s --help at %d columns: lines longer than the pane: %r"
                  % (" ".join(args) or "brickprof", width, long))


def perfetto_refuses_a_terminal(brickprof, data, workdir):
    trace = os.path.join(data, "tree_small.json")
    main, child = pty.openpty()
    try:
        proc = subprocess.run([brickprof, "report", trace, "--perfetto"], stdout=child,
                              stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(child)
    shown = b""
    os.set_blocking(main, False)
    try:
        shown = os.read(main, 65536)
    except (BlockingIOError, OSError):
        pass
    os.close(main)
    check(proc.returncode == 2, "--perfetto on a terminal: exit %d" % proc.returncode)
    check(shown == b"", "--perfetto on a terminal printed %d bytes" % len(shown))
    err = proc.stderr.decode()
    check(err == "brickprof: report: --perfetto is binary and standard output is a terminal: "
          "give -o FILE, or redirect (> FILE)\n", "--perfetto on a terminal said %r" % err)
    # To a pipe, and to a file, it is written.
    piped = subprocess.run([brickprof, "report", trace, "--perfetto"], capture_output=True)
    check(piped.returncode == 0 and len(piped.stdout) > 0, "--perfetto to a pipe: exit %d"
          % piped.returncode)
    out = os.path.join(workdir, "t.pftrace")
    to_file = subprocess.run([brickprof, "report", trace, "--perfetto", "-o", out],
                             capture_output=True, text=True)
    check(to_file.returncode == 0 and to_file.stderr == "brickprof: wrote %s\n" % out,
          "--perfetto -o FILE: exit %d, %r" % (to_file.returncode, to_file.stderr))
    check(os.path.getsize(out) == len(piped.stdout), "the file and the pipe differ")


def main():
    brickprof, data = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    workdir = tempfile.mkdtemp(prefix="terminal_cli.")
    try:
        perfetto_refuses_a_terminal(brickprof, data, workdir)
        if shutil.which("tmux") is None:
            skip("tmux is not installed: the help width in a terminal is not checked")
        helps_fit(brickprof, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
