#!/usr/bin/env python3
"""The README's pictures, taken from a recorded trace the way a person sees it.

view.png: `brickprof view TRACE` in a 100x30 tmux pane, a decode step's
GateProjection opened with its kernels and the detail pane; the pane is read
with `capture-pane -e` (text and colours) and drawn by headless Chromium in a
monospace font. report.png: the timeline of the HTML page `brickprof report
TRACE --html` writes, zoomed to two decode steps, the second selected so its
launch arrows show.

usage: screenshots.py BRICKPROF TRACE OUT_DIR   (scripts/screenshots runs it)
"""
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "tools" / "view"))
sys.path.insert(0, str(ROOT / "tests" / "tools" / "html"))
import chromium  # noqa: E402
from view_tmux import Pane  # noqa: E402

COLUMNS, ROWS = 100, 30
READY = 'document.documentElement.dataset.ready === "true"'

# A dark terminal's 16 colours (VS Code's default terminal theme): normal 0-7, bright 8-15.
PALETTE = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
           "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"]
FOREGROUND, BACKGROUND = "#cccccc", "#1e1e1e"


def colour_256(n):
    if n < 16:
        return PALETTE[n]
    if n < 232:
        n -= 16
        level = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (level[n // 36], level[n // 6 % 6], level[n % 6])
    grey = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (grey, grey, grey)


class Style:
    """The SGR state of the terminal: what tmux's capture-pane -e sets and resets."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = self.bg = None
        self.bold = self.dim = self.underline = self.reverse = False

    def apply(self, params):
        codes = [int(p) if p else 0 for p in params.split(";")] if params else [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    value, i = colour_256(codes[i + 2]), i + 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    value, i = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5]), i + 4
                else:
                    value = None
                if c == 38:
                    self.fg = value
                else:
                    self.bg = value
            elif c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 2:
                self.dim = True
            elif c == 4:
                self.underline = True
            elif c == 7:
                self.reverse = True
            elif c == 22:
                self.bold = self.dim = False
            elif c == 24:
                self.underline = False
            elif c == 27:
                self.reverse = False
            elif 30 <= c <= 37:
                self.fg = PALETTE[c - 30]
            elif c == 39:
                self.fg = None
            elif 40 <= c <= 47:
                self.bg = PALETTE[c - 40]
            elif c == 49:
                self.bg = None
            elif 90 <= c <= 97:
                self.fg = PALETTE[c - 90 + 8]
            elif 100 <= c <= 107:
                self.bg = PALETTE[c - 100 + 8]
            i += 1

    def css(self):
        fg, bg = self.fg or FOREGROUND, self.bg or BACKGROUND
        if self.reverse:
            fg, bg = bg, fg
        out = ["color:" + fg]
        if bg != BACKGROUND:
            out.append("background:" + bg)
        if self.bold:
            out.append("font-weight:bold")
        if self.dim:
            out.append("opacity:0.6")
        if self.underline:
            out.append("text-decoration:underline")
        return ";".join(out)


def screen_to_html(screen):
    """A capture-pane -e screen as an HTML page: one <pre>, a <span> per run of one style."""
    style = Style()
    parts = []
    for piece in re.split(r"(\x1b\[[0-9;]*m)", screen):
        sgr = re.fullmatch(r"\x1b\[([0-9;]*)m", piece)
        if sgr:
            style.apply(sgr.group(1))
        elif piece:
            parts.append('<span style="%s">%s</span>' % (style.css(), html.escape(piece)))
    return ("<!doctype html><meta charset=utf-8><style>"
            "body{margin:0;background:#fff}"
            "pre{display:inline-block;margin:0;padding:12px 14px;border-radius:8px;"
            "background:%s;color:%s;font:15px/1.2 'DejaVu Sans Mono',monospace}"
            "</style><pre id=screen>%s</pre>" % (BACKGROUND, FOREGROUND, "".join(parts)))


def view_screen(brickprof, trace, workdir):
    """The browser's screen, escape sequences and all, after the keys a person would press."""
    pane = Pane(workdir, COLUMNS, ROWS)
    try:
        pane.run("%s view %s" % (brickprof, trace))
        pane.wait_text("1 Tree", "?Help")
        pane.type("/decode token")  # searches start from the selection: the decode step's
        pane.keys("Enter")
        pane.type("/GateProj")
        pane.keys("Enter")
        pane.wait_text("▸ GateProjection")
        pane.type("l")
        pane.wait_text("▾ GateProjection")
        pane.type("/")  # an empty search: the highlight of the last one off
        pane.keys("Enter")
        pane.type("d")
        pane.wait_text("Detail", "in            decode token › Layer 0")
        screen = pane.tmux("capture-pane", "-e", "-N", "-p", "-t", "t")
        pane.type("q")
        return screen.rstrip("\n")
    finally:
        pane.close()


def shoot_view(browser, brickprof, trace, out, workdir):
    page_path = os.path.join(workdir, "view.html")
    with open(page_path, "w", encoding="utf-8") as f:
        f.write(screen_to_html(view_screen(brickprof, trace, workdir)))
    page = chromium.Page(browser, 1000, 700)
    page.open("file://" + page_path, "document.readyState === 'complete' && document.fonts.status === 'loaded'")
    box = page.eval("(() => { const r = document.getElementById('screen').getBoundingClientRect();"
                    " return [r.width, r.height]; })()")
    page.screenshot(os.path.join(out, "view.png"), {"x": 0, "y": 0, "width": box[0], "height": box[1]})


# Zooms the timeline to the first two decode steps of the host thread and selects the second.
ZOOM_TO_DECODE = """(() => {
  const t = brickprofPage.timeline, m = t.m, steps = [];
  for (let i = 0; i < m.n; i++)
    if (m.nameOf(i) === 'decode token' && m.lanes[m.lane[i]].kind === 'thread') steps.push(i);
  if (steps.length < 2) return false;
  const s = m.start[steps[0]], e = m.start[steps[1]] + m.dur[steps[1]];
  t.zoomTo(s - (e - s) * 0.02, e + (e - s) * 0.02);
  t.select(steps[1], false);
  return true;
})()"""


def shoot_report(browser, brickprof, trace, out, workdir):
    page_path = os.path.join(workdir, "report.html")
    subprocess.run([brickprof, "report", trace, "--html", page_path, "--quiet"], check=True,
                   stderr=subprocess.DEVNULL)
    page = chromium.Page(browser, 1280, 900)
    page.open("file://" + page_path, READY)
    if not page.eval(ZOOM_TO_DECODE):
        raise SystemExit("screenshots: %s has fewer than two 'decode token' scopes" % trace)
    box = page.eval("(() => { const r = document.getElementById('timeline').getBoundingClientRect();"
                    " return [r.top + scrollY, r.height]; })()")
    page.screenshot(os.path.join(out, "report.png"),
                    {"x": 0, "y": box[0] - 8, "width": 1280, "height": box[1] + 16})


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    brickprof, trace, out = (os.path.abspath(a) for a in sys.argv[1:])
    binary = chromium.find_chromium()
    if binary is None or shutil.which("tmux") is None:
        sys.exit("screenshots: needs tmux and Chromium (scripts/setup installs both)")
    os.makedirs(out, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="brickprof-screenshots.")
    browser = chromium.Browser(binary)
    try:
        shoot_view(browser, brickprof, trace, out, workdir)
        shoot_report(browser, brickprof, trace, out, workdir)
    finally:
        browser.close()
        shutil.rmtree(workdir, ignore_errors=True)
    for name in ("view.png", "report.png"):
        print("screenshots: wrote", os.path.join(out, name))


if __name__ == "__main__":
    main()
