#!/usr/bin/env python3
"""Time to first screen of `brickprof view FILE`, as a ratio to `brickprof
report FILE --summary` on the same file, and the time until the tree is on
the screen.

view runs on a pseudo-terminal of 120x40 (TERM=xterm-256color, UTF-8)
whose output a small terminal emulator (Screen) keeps as a grid of
characters: the first screen is there when the status line's last key
hint ("Quit") is on it. When the tree takes longer to build than a moment,
that first screen shows the summary while the tree is built on another
thread; the tree is there when its column heading ("%Parent") is. report's output goes to
/dev/null. The two alternate run by run, so a change in the machine's load
hits both alike; the medians and their ratios are printed.

usage: first_screen.py BRICKPROF FILE... [--runs N]
"""
import argparse
import fcntl
import os
import pty
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time

WIDTH, HEIGHT = 120, 40
DONE = "Quit"  # the last hint on the status line at 120 columns
TREE = "%Parent"  # the tree's column heading
TIMEOUT = 600.0


class Screen:
    """Just enough of a VT100/xterm to follow what ncurses draws: text,
    cursor moves, erases, repeats, inserted and deleted characters and
    lines, scroll regions. Attributes and modes are ignored."""

    CSI = re.compile(rb"\x1b\[([?>]?)([0-9;]*)([@-~])|\x1b[()][0-9A-Za-z]|\x1b[=>78M]|"
                     rb"\x1b\][^\x07]*\x07")

    def __init__(self, width, height):
        self.w, self.h = width, height
        self.rows = [[" "] * width for _ in range(height)]
        self.x = self.y = 0
        self.top, self.bottom = 0, height - 1
        self.last = " "
        self.pending = b""

    def text(self):
        return "\n".join("".join(r) for r in self.rows)

    def put(self, ch):
        if self.x >= self.w:
            self.x = 0
            self.newline()
        self.rows[self.y][self.x] = ch
        self.last = ch
        self.x += 1

    def newline(self):
        if self.y == self.bottom:
            del self.rows[self.top]
            self.rows.insert(self.bottom, [" "] * self.w)
        elif self.y < self.h - 1:
            self.y += 1

    def csi(self, private, params, final):
        p = [int(v) if v else 0 for v in params.split(b";")] if params else []
        n = max(p[0], 1) if p else 1
        row = self.rows[self.y]
        if final in b"Hf":
            self.y = min(max((p[0] if p else 1) - 1, 0), self.h - 1)
            self.x = min(max((p[1] if len(p) > 1 else 1) - 1, 0), self.w - 1)
        elif final == ord("A"):
            self.y = max(self.y - n, 0)
        elif final == ord("B"):
            self.y = min(self.y + n, self.h - 1)
        elif final == ord("C"):
            self.x = min(self.x + n, self.w - 1)
        elif final == ord("D"):
            self.x = max(self.x - n, 0)
        elif final == ord("G"):
            self.x = min(n - 1, self.w - 1)
        elif final == ord("d"):
            self.y = min(n - 1, self.h - 1)
        elif final == ord("K"):
            mode = p[0] if p else 0
            lo, hi = {0: (self.x, self.w), 1: (0, self.x + 1), 2: (0, self.w)}[mode]
            row[lo:hi] = [" "] * (hi - lo)
        elif final == ord("J"):
            mode = p[0] if p else 0
            ys = range(self.y + 1, self.h) if mode == 0 else range(0, self.h)
            if mode == 0:
                row[self.x:] = [" "] * (self.w - self.x)
            for y in ys:
                self.rows[y] = [" "] * self.w
        elif final == ord("X"):
            row[self.x:self.x + n] = [" "] * len(row[self.x:self.x + n])
        elif final == ord("b"):
            for _ in range(n):
                self.put(self.last)
        elif final == ord("@"):
            row[self.x:self.x] = [" "] * n
            del row[self.w:]
        elif final == ord("P"):
            del row[self.x:self.x + n]
            row.extend([" "] * (self.w - len(row)))
        elif final in b"LM" and self.top <= self.y <= self.bottom:
            for _ in range(n):
                if final == ord("L"):
                    del self.rows[self.bottom]
                    self.rows.insert(self.y, [" "] * self.w)
                else:
                    del self.rows[self.y]
                    self.rows.insert(self.bottom, [" "] * self.w)
        elif final == ord("r") and not private:
            self.top = (p[0] if p else 1) - 1
            self.bottom = (p[1] if len(p) > 1 else self.h) - 1
            self.x = self.y = 0

    def feed(self, data):
        data = self.pending + data
        self.pending = b""
        i = 0
        while i < len(data):
            b = data[i]
            if b == 0x1b:
                m = self.CSI.match(data, i)
                if not m:
                    if len(data) - i < 64:  # cut in the middle: wait for the rest
                        self.pending = data[i:]
                        return
                    i += 1
                    continue
                if m.group(3):
                    self.csi(m.group(1), m.group(2), m.group(3)[0])
                elif m.group(0) == b"\x1bM":  # reverse index
                    if self.y == self.top:
                        del self.rows[self.bottom]
                        self.rows.insert(self.top, [" "] * self.w)
                    else:
                        self.y = max(self.y - 1, 0)
                i = m.end()
            elif b == 0x0d:
                self.x = 0
                i += 1
            elif b == 0x0a:
                self.newline()
                i += 1
            elif b == 0x08:
                self.x = max(self.x - 1, 0)
                i += 1
            elif b < 0x20 or b == 0x7f:
                i += 1
            else:
                size = 1 if b < 0x80 else 2 if b < 0xe0 else 3 if b < 0xf0 else 4
                if i + size > len(data):
                    self.pending = data[i:]
                    return
                self.put(data[i:i + size].decode("utf-8", errors="replace"))
                i += size


def time_report(brickprof, path):
    start = time.monotonic()
    subprocess.run([brickprof, "report", path, "--summary", "--quiet"], stdout=subprocess.DEVNULL,
                   check=True)
    return time.monotonic() - start


def time_view(brickprof, path):
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("CI", None)
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", HEIGHT, WIDTH, 0, 0))
        os.execve(brickprof, [brickprof, "view", "--quiet", path], env)
    start = time.monotonic()
    screen = Screen(WIDTH, HEIGHT)
    first = tree = None
    try:
        while tree is None:
            if time.monotonic() - start > TIMEOUT:
                raise SystemExit("no first screen from brickprof view " + path)
            ready, _, _ = select.select([fd], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise SystemExit("brickprof view ended before its first screen:\n" +
                                     screen.text())
                screen.feed(chunk)
                now = time.monotonic() - start
                text = screen.text()
                if first is None and DONE in text:
                    first = now
                if first is not None and TREE in text:
                    tree = now
        os.write(fd, b"q")
        end = time.monotonic() + 60
        while time.monotonic() < end:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            select.select([fd], [], [], 0.1)
            try:
                os.read(fd, 65536)
            except OSError:
                pass
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        return first, tree
    finally:
        os.close(fd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("brickprof")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    print("%-30s %7s %9s %9s %7s %9s %7s" % ("file", "MB", "report s", "first s", "ratio",
                                               "tree s", "ratio"))
    for path in a.files:
        reports, firsts, trees = [], [], []
        for _ in range(a.runs):
            reports.append(time_report(a.brickprof, path))
            first, tree = time_view(a.brickprof, path)
            firsts.append(first)
            trees.append(tree)
        r, f, t = (statistics.median(x) for x in (reports, firsts, trees))
        print("%-30s %7.1f %9.3f %9.3f %7.2f %9.3f %7.2f" % (os.path.basename(path),
              os.path.getsize(path) / 1e6, r, f, f / r, t, t / r))
        for name, runs in (("report", reports), ("first screen", firsts), ("tree", trees)):
            print("    %-12s %s" % (name, " ".join("%.3f" % x for x in runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
