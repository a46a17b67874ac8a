#!/usr/bin/env python3
"""`brickprof view` in a real terminal, as a person uses it: tmux runs a shell
in a pane of a private tmux server, the shell runs the browser, keys are sent
with send-keys and the screen is read with capture-pane. Every check polls
the screen until the text appears (or a generous timeout passes), so it does
not depend on the machine's speed. After each exit (q, Ctrl-C, SIGTERM, a
crash signal) the pane must show the shell and what was on it before, with
the alternate screen left and typed characters echoed again.

usage: view_tmux.py BRICKPROF TEST_DATA_DIR   (exit 77 when tmux is missing)
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "support"))
from checks import skip  # noqa: E402

TIMEOUT = 60.0  # seconds a screen may take to appear on a loaded machine
PROMPT = "view-test$ "  # capture-pane drops trailing spaces: look for PROMPT.strip()


class Failure(Exception):
    pass


class Pane:
    """One tmux server (private socket) with one window running sh."""

    def __init__(self, workdir, width, height):
        self.socket = os.path.join(workdir, "tmux.sock")
        self.workdir = workdir
        env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
        env.pop("TMUX", None)
        self.tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height),
                  "env", "-i", "PATH=" + os.environ.get("PATH", "/usr/bin:/bin"),
                  "HOME=" + workdir, "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=screen-256color",
                  "PS1=" + PROMPT, "sh", env=env)
        try:
            self.wait_for(lambda s: PROMPT.strip() in s, "the shell's prompt")
        except Failure:
            self.close()  # the caller never gets a pane to close
            raise

    def tmux(self, *args, env=None):
        r = subprocess.run(["tmux", "-S", self.socket, "-f", "/dev/null", *args],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise Failure("tmux %s: %s" % (" ".join(args), r.stderr.strip()))
        return r.stdout

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "t")

    def lines(self):
        return self.screen().split("\n")

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def type(self, text):
        self.tmux("send-keys", "-t", "t", "-l", text)

    def run(self, command):
        self.type(command)
        self.keys("Enter")

    def mark(self, text):
        """Echoes `text` and waits for the output, so a command typed next is
        not echoed in front of it."""
        self.run("echo " + text)
        self.wait_for(lambda s: any(l.endswith(text) and "echo" not in l for l in s.split("\n")),
                      repr(text) + " echoed")

    def clear(self):
        """Clears the screen and waits for the prompt alone on it (a command
        typed while clear runs would lose its echo)."""
        self.run("clear")
        self.wait_for(lambda s: [l for l in s.split("\n") if l.strip()] == [PROMPT.strip()],
                      "a clear screen")

    def alternate_screen(self):
        return self.tmux("display-message", "-p", "-t", "t", "#{alternate_on}").strip() == "1"

    def resize(self, width, height):
        self.tmux("resize-window", "-t", "t", "-x", str(width), "-y", str(height))

    def wait_for(self, test, what):
        deadline = time.monotonic() + TIMEOUT
        while True:
            screen = self.screen()
            if test(screen):
                return screen
            if time.monotonic() > deadline:
                raise Failure("timed out waiting for %s; the screen:\n%s" % (what, screen))
            time.sleep(0.05)

    def wait_text(self, *texts):
        return self.wait_for(lambda s: all(t in s for t in texts), " and ".join(map(repr, texts)))

    def wait_words(self, text):
        """Waits for `text` on the screen, its words perhaps wrapped over lines."""
        words = " ".join(text.split())
        return self.wait_for(lambda s: words in " ".join(s.split()), repr(text) + " (wrapped)")

    def close(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)


def check(condition, message, screen=""):
    if not condition:
        raise Failure(message + ("\nthe screen:\n" + screen if screen else ""))


def colours_in(escaped):
    """The colour parameters of the SGR sequences in a capture-pane -e screen
    (30-37, 40-47, 90-97, 100-107, 38;..., 48;...; not 39/49, the defaults)."""
    found = []
    for params in re.findall(r"\x1b\[([0-9;]*)m", escaped):
        for p in params.split(";"):
            if p and (30 <= int(p) <= 37 or 40 <= int(p) <= 47 or 90 <= int(p) <= 107
                      or p in ("38", "48")):
                found.append(p)
    return found


def selected_line(pane, text):
    """The screen line holding `text` (the first one)."""
    for line in pane.lines():
        if text in line:
            return line
    raise Failure("no line with %r on the screen:\n%s" % (text, pane.screen()))


RESTORES = [0]  # numbers each check's shell commands, so none matches an earlier one's output


def expect_restored(pane, marker, exit_code=None):
    """The browser is gone and the shell is back as it was."""
    screen = pane.wait_for(lambda s: marker in s and "brickprof view  " not in s,
                           "the shell's screen back, with " + repr(marker))
    check(not pane.alternate_screen(), "still on the alternate screen", screen)
    RESTORES[0] += 1
    n = RESTORES[0]
    if exit_code is not None:
        pane.run("echo status-%d=$?" % n)
        pane.wait_text("status-%d=%d" % (n, exit_code))
    # Typed characters are echoed again (the terminal's modes were restored).
    pane.run("echo typed-back-%d" % n)
    pane.wait_for(lambda s: PROMPT + "echo typed-back-%d" % n in s and
                  s.count("typed-back-%d" % n) >= 2, "the typed command echoed and run")


def scenario_gpu_trace(brickprof, data, workdir):
    """The GPU fixture at 120x40: expand a layer, search a brick, the detail
    pane, the critical path, a what-if, a resize, quit."""
    pane = Pane(workdir, 120, 40)
    try:
        pane.mark("before-the-browser")
        pane.run("%s view %s/gpu/bricklayer-graph.json" % (brickprof, data))
        pane.wait_text("brickprof view  bricklayer", "1 Tree", "decode token", "?Help")
        check(pane.alternate_screen(), "the browser is not on the alternate screen")
        # Expand a layer: find it, then l.
        pane.type("/Layer 1")
        pane.keys("Enter")
        pane.wait_text("├─▸ Layer 1")
        pane.type("l")
        screen = pane.wait_text("├─▾ Layer 1")
        check("│ ├─▸ RmsNorm" in screen, "Layer 1's bricks are not shown", screen)
        # Search a brick inside collapsed subtrees.
        pane.type("/GateProj")
        pane.keys("Enter")
        screen = pane.wait_text("▸ GateProjection")
        # The detail pane.
        pane.type("d")
        screen = pane.wait_text("Detail", "one call      min", "critical path ")
        check("GateProjection  brick (a marked step of a layer), FFN" in screen, "the detail pane names another row", screen)
        # The critical path, one key away.
        pane.type("3")
        pane.wait_text("Critical path 18.50ms over 365 steps", "adds", "lane")
        # A what-if on the brick selected in the tree.
        pane.type("1")
        pane.wait_text("GateProjection  brick (a marked step of a layer), FFN")
        pane.type("w")
        pane.wait_text("what if GateProjection ran K times faster? K = 2")
        pane.keys("BSpace")
        pane.type("4")
        pane.keys("Enter")
        pane.wait_text("what-if GateProjection 4x faster: critical path 18.50ms → ")
        pane.type("3")
        pane.wait_text("What-if: GateProjection 4x faster shortens the run by")
        # A resize redraws to the new size.
        pane.resize(100, 30)
        screen = pane.wait_for(lambda s: len(s.split("\n")) >= 30 and "?Help" in s.split("\n")[29]
                               and "Critical path 18.50ms" in s, "the screen redrawn at 100x30")
        check(all(len(l) <= 100 for l in screen.split("\n")), "a line wider than 100", screen)
        pane.type("1")
        pane.wait_text("Name", "%Parent")
        # Help, then quit.
        pane.type("?")
        pane.wait_text("brickprof view: keys")
        pane.keys("Escape")
        pane.wait_for(lambda s: "brickprof view: keys" not in s, "the help closed")
        pane.type("q")
        expect_restored(pane, "before-the-browser", 0)
    finally:
        pane.close()


def scenario_cpu_trace_small_terminal(brickprof, data, workdir):
    """A CPU trace at 80x24, a terminal too small, and --ascii."""
    pane = Pane(workdir, 80, 24)
    try:
        pane.mark("small-terminal")
        pane.run("%s view %s/tree_small.json" % (brickprof, data))
        # Small enough to open whole on the first screen.
        screen = pane.wait_text("brickprof view  bricklayer", "▾ Layer 0", "└── custom")
        check(all(len(l) <= 80 for l in screen.split("\n")), "a line wider than 80", screen)
        pane.type("h")
        pane.wait_for(lambda s: "▸ Layer 0" in s and "rmsnorm_kernel" not in s, "Layer 0 closed")
        pane.type("l")
        pane.wait_text("▾ Layer 0", "├─▾ RmsNorm", "└── cuStreamSynchronize")
        pane.type("/Qkv")
        pane.keys("Enter")
        pane.type("d")
        pane.wait_text("Detail", "QkvProjection  brick (a marked step of a layer), Attention")
        pane.type("2")
        pane.wait_text("Per-brick timing (", "QkvProjection")
        pane.resize(50, 12)
        pane.wait_words("needs a terminal of at least 60x15; this one is 50x12.")
        # Narrower than the message: it wraps, whole, the minimum the help says.
        pane.resize(40, 10)
        screen = pane.wait_words("brickprof view needs a terminal of at least 60x15; "
                                 "this one is 40x10. Make it larger, or press q to quit.")
        check(all(len(l) <= 40 for l in screen.split("\n")), "a line wider than 40", screen)
        help_text = subprocess.run([brickprof, "view", "--help"], capture_output=True,
                                   text=True).stdout
        check("at least 60x15" in " ".join(help_text.split()),
              "view --help names the minimum size the screen says", help_text)
        pane.resize(80, 24)
        pane.wait_text("Per-brick timing (")
        pane.type("q")
        expect_restored(pane, "small-terminal", 0)
        # --ascii: ASCII tree lines, no colour.
        pane.run("%s view --ascii %s/tree_small.json" % (brickprof, data))
        pane.wait_text("- Layer 0", "|-- RmsNorm", "|-  H2D 4.0MiB")
        pane.type("jh")
        screen = pane.wait_text("- Layer 0", "|-+ RmsNorm", "`-  cuStreamSynchronize")
        check(all(ord(c) < 128 for c in screen), "non-ASCII on the --ascii screen", screen)
        check(not colours_in(pane.tmux("capture-pane", "-p", "-e", "-t", "t")),
              "colours on the --ascii screen", screen)
        pane.type("q")
        expect_restored(pane, "small-terminal", 0)
    finally:
        pane.close()


def scenario_diff_and_merged(brickprof, data, workdir):
    """A diff against a base, and a merged multi-rank trace."""
    pane = Pane(workdir, 120, 40)
    try:
        pane.mark("compare")
        pane.run("%s view %s/analyses/diff_new.json %s/analyses/diff_base.json"
                 % (brickprof, data, data))
        screen = pane.wait_text("Δ/call", "RmsNorm")
        check("+10.0%  ▲" in selected_line(pane, "RmsNorm"), "RmsNorm's regression", screen)
        pane.type("x")
        line = pane.wait_text("gemv") and selected_line(pane, "gemv")
        check("+20.0%  ▲" in line, "gemv's regression", pane.screen())
        pane.type("9")
        pane.wait_text("REGRESSION kernel gemv", "2 regression(s)")
        pane.type("llllll")  # the end of the long lines
        pane.wait_text("same name, different code")
        pane.type("q")
        expect_restored(pane, "compare", 0)
        pane.run("%s view %s/analyses/merged.json" % (brickprof, data))
        pane.wait_text("2 ranks merged", "Thread")
        pane.type("r")
        pane.wait_text("[rank 0]")
        pane.type("r")
        pane.wait_text("[rank 0 #2]")
        pane.type("9")
        pane.wait_text("Ranks side by side", "rank 0 #2")
        pane.type("q")
        expect_restored(pane, "compare", 0)
    finally:
        pane.close()


def diff_cli(brickprof, base, new):
    """`brickprof diff BASE NEW`: its verdict line and each listed entry's figures, by name."""
    text = subprocess.run([brickprof, "diff", base, new, "--quiet"], capture_output=True,
                          text=True).stdout
    lines = text.rstrip("\n").split("\n")
    figures = {}
    for line in lines:
        m = re.match(r"^(REGRESSION| {10}) (?:brick |kernel) (.+?)(?: \[[^]]*\])?: (.*?)(  same name.*)?$",
                     line)
        if m:
            figures[m.group(2)] = (m.group(1) == "REGRESSION", m.group(3))
    return lines[-1], figures


def detail_words(screen):
    """The detail pane's words, read down its column (it may stand beside the tree)."""
    lines = screen.split("\n")
    at = next((l.index("vs base") for l in lines if "vs base" in l), None)
    if at is None:
        return ""
    return " ".join(" ".join(l[at:] for l in lines).split())


def scenario_diff_verdict(brickprof, data, workdir):
    """With a base, the view judges as `brickprof diff` does: the title bar has the verdict, the
    tree's change column is diff's change per call beyond the others' move with its regressions,
    and the detail pane gives an entry's figures as diff lists them, with why."""
    pane = Pane(workdir, 200, 50)
    try:
        base, new = data + "/cpu/bricklayer-scalar.json", data + "/cpu/bricklayer-avx2.json"
        verdict, figures = diff_cli(brickprof, base, new)
        check(verdict.startswith("FAIL") and figures.get("AttentionScore", (False,))[0],
              "the fixture pair no longer fails on AttentionScore: " + verdict)
        pane.mark("verdict")
        pane.run("%s view %s %s" % (brickprof, new, base))
        screen = pane.wait_text("Δ/call", "[vs %s: FAIL]" % base)
        pane.type("/AttentionScore")
        pane.keys("Enter")
        pane.wait_text("── AttentionScore")
        line = selected_line(pane, "AttentionScore")
        relative = figures["AttentionScore"][1].split("(")[1].split(" ")[0]  # "+1288.9%"
        check(relative + "  ▲" in line, "AttentionScore's change is diff's, %s, a regression"
              % relative, pane.screen())
        pane.type("d")
        pane.wait_for(lambda s: "vs base " + "REGRESSION " + figures["AttentionScore"][1] + " slower per "
                      "call: its 99% interval starts at" in detail_words(s),
                      "AttentionScore's figures as diff lists them, and why")
        # A brick diff does not count (within the spread of its calls): no regression marker.
        pane.type("/KvCacheWrite")
        pane.keys("Enter")
        screen = pane.wait_for(lambda s: "vs base within spread median" in detail_words(s),
                               "KvCacheWrite within the spread")
        check("▲" not in selected_line(pane, "KvCacheWrite"), "KvCacheWrite is no regression",
              screen)
        pane.type("9")
        pane.wait_text(verdict[:60])
        pane.type("q")
        expect_restored(pane, "verdict", 0)
        # Diff passes a trace against itself: the title says so.
        same = data + "/tree_small.json"
        pane.run("%s view %s %s" % (brickprof, same, same))
        pane.wait_text("[vs %s: PASS]" % same)
        pane.type("q")
        expect_restored(pane, "verdict", 0)
    finally:
        pane.close()


def scenario_diff_under_base_lacks(brickprof, data, workdir):
    """`diff --under` refuses a BASE without the scopes (exit 2, no verdict); so does the view:
    it says so in the Diff pane and the title, and judges nothing of all of BASE."""
    pane = Pane(workdir, 160, 40)
    try:
        new, base = data + "/tree_small.json", data + "/analyses/diff_base.json"
        cli = subprocess.run([brickprof, "diff", base, new, "--under", "Layer 0"],
                             capture_output=True, text=True)
        check(cli.returncode == 2 and "no scope named 'Layer 0' (--under)" in cli.stderr,
              "diff --under refuses the pair: %d %r" % (cli.returncode, cli.stderr))
        pane.mark("under-base")
        pane.run("%s view --under 'Layer 0' %s %s" % (brickprof, new, base))
        pane.wait_text("brickprof view  bricklayer", "9 Diff")
        pane.type("9")
        screen = pane.wait_text("no scope named 'Layer 0' (--under)")
        check("FAIL" not in screen and "PASS" not in screen, "a verdict on all of BASE", screen)
        pane.wait_text("[vs %s: no verdict]" % base)
        pane.type("q")
        expect_restored(pane, "under-base", 0)
    finally:
        pane.close()


def scenario_prompt_names(brickprof, data, workdir):
    """A name the trace does not have, typed at the `u` prompt, is answered as `--under` answers
    it: one line with the closest names, and what the name is when it is no scope."""
    pane = Pane(workdir, 120, 30)
    try:
        pane.mark("prompts")
        pane.run("%s view %s/tree_small.json" % (brickprof, data))
        pane.wait_text("brickprof view  bricklayer")
        for typed, want in [("rmsnorm", "no scope named 'rmsnorm' (--under); closest: 'RmsNorm'"),
                            ("rmsnorm_kernel", "no scope named 'rmsnorm_kernel' (--under takes "
                             "scopes: that is a kernel); closest: 'RmsNorm'")]:
            cli = subprocess.run([brickprof, "report", data + "/tree_small.json", "--under", typed],
                                 capture_output=True, text=True).stderr
            check(want in cli, "report --under %s says %r" % (typed, cli))
            pane.type("u")
            pane.wait_text("under scopes named: ")
            pane.keys("C-u")
            pane.type(typed)
            pane.keys("Enter")
            screen = pane.wait_text(want)
            check(sum(want in l for l in screen.split("\n")) == 1, "not one line", screen)
        pane.type("q")
        expect_restored(pane, "prompts", 0)
    finally:
        pane.close()


def scenario_python_frames(brickprof, data, workdir):
    """A Python program's trace: its GPU work under the lines that launched it,
    without asking; --python-frames 0 leaves it at the top."""
    pane = Pane(workdir, 120, 30)
    try:
        pane.mark("python")
        pane.run("%s view %s/analyses/python_frames.json" % (brickprof, data))
        pane.wait_text("python_app.py:41 attention", "python_app_layers.py:5 mlp")
        pane.type("q")
        expect_restored(pane, "python", 0)
        pane.run("%s view --python-frames 0 %s/analyses/python_frames.json" % (brickprof, data))
        screen = pane.wait_text("attention_kernel", "mlp_kernel")
        check("python_app.py:" not in screen, "frames shown with --python-frames 0", screen)
        pane.type("q")
        expect_restored(pane, "python", 0)
    finally:
        pane.close()


def scenario_memory(brickprof, data, workdir):
    """A trace with memory events: the Memory tab (the last of the views, 9) shows
    report --memory; a scope's detail pane its memory figures."""
    pane = Pane(workdir, 130, 40)
    try:
        pane.mark("memory")
        pane.run("%s view %s/analyses/memory_steps.json" % (brickprof, data))
        pane.wait_text("brickprof view  memory_steps", "9 Memory")
        pane.type("9")
        pane.wait_text("GPU 0 device memory: peak 492.0MiB at 5.60ms in decode / step / leak",
                       "host pinned memory: peak 64.0MiB")
        pane.type("G")  # the end of the text: growth and the out-of-memory failure
        pane.wait_text("decode / step / leak: +4.0MiB per run over 3 runs",
                       "asked 1.0TiB of GPU 0 device memory in oom")
        # The tree, the first "step" (three calls), its detail pane.
        pane.type("1")
        pane.type("/step")
        pane.keys("Enter")
        pane.wait_text("step")
        pane.type("d")
        screen = pane.wait_words("+108.0MiB in 6 allocs, -96.0MiB in 3 frees, peak 492.0MiB")
        check("GPU 0 device memory" in screen, "the detail pane names no account", screen)
        pane.type("q")
        expect_restored(pane, "memory", 0)
    finally:
        pane.close()


def scenario_tiles(brickprof, data, workdir):
    """A trace with tiles: the Tiles tab (the last of the views, 9, as the trace has no
    memory events) shows report --tiles, a pool worker's tiles counted for the brick."""
    pane = Pane(workdir, 130, 40)
    try:
        pane.mark("tiles")
        pane.run("%s view %s/analyses/tiles.json" % (brickprof, data))
        pane.wait_text("brickprof view  bricklayer (pid 4343 on box)", "9 Tiles")
        pane.type("9")
        # GateProjection's macro tiles: its own thread's 4 (380µs) and the worker's 4 (370µs).
        pane.wait_text("GateProjection  macro           8    750.0µs", "22.4% of L3")
        pane.wait_text("L1 100.00GB/s, L2 50.00GB/s, L3 25.00GB/s")
        pane.type("q")
        expect_restored(pane, "tiles", 0)
    finally:
        pane.close()


def scenario_tokens_and_cpu_counters(brickprof, data, workdir):
    """A trace with the program's tokens and counters: a Tokens tab (9) shows
    report --tokens; one recorded with CPU counters: a CPU counters tab (9)
    shows report --cpu-counters."""
    pane = Pane(workdir, 150, 40)
    try:
        pane.mark("tokens")
        pane.run("%s view %s/analyses/tokens.json" % (brickprof, data))
        pane.wait_text("brickprof view  bricklayer (pid 4242", "9 Tokens")
        pane.type("9")
        pane.wait_text("Tokens: 2 in 1.73ms: 1156.07 tokens/s, 865.0µs per token",
                       "QkvProjection    300.0µs    150.0µs      6666.67",
                       "l2_hit_rate        2        0.87        0.89        0.91        0.87")
        pane.type("q")
        expect_restored(pane, "tokens", 0)
        pane.mark("cpu-counters")
        pane.run("%s view %s/analyses/cpu_counters.json" % (brickprof, data))
        pane.wait_text("brickprof view  bricklayer (pid 5151", "9 CPU counters")
        pane.type("9")
        pane.wait_text("CPU counters: on: cycles, instructions",
                       "IPC  Miss rate  LLC MPKI")
        # RmsNorm's IPC, miss rate and MPKI, and the next row (waited for: drawn after it).
        pane.wait_text("3.00      10.0%      0.44", "QkvProjection")
        pane.type("q")
        expect_restored(pane, "cpu-counters", 0)
    finally:
        pane.close()


def scenario_gpu_metrics(brickprof, data, workdir):
    """A trace recorded with GPU metrics: a GPU metrics tab (9) shows
    report --gpu-metrics, its bricks and kernels."""
    pane = Pane(workdir, 150, 40)
    try:
        pane.mark("gpu-metrics")
        pane.run("%s view %s/analyses/gpu_metrics.json" % (brickprof, data))
        pane.wait_text("brickprof view  bricklayer (pid 4242", "9 GPU metrics")
        pane.type("9")
        pane.wait_text("GPU metrics: kernel replay, 2 passes per kernel",
                       "L2 hit  DRAM read  DRAM write  Occupancy")
        # GateProjection's two kernels: L2 hit weighted by sectors, bytes summed.
        # Every row: the screen is drawn while the view is computed, row by row.
        pane.wait_text("GateProjection         1        2      50.2%   476.8MiB", "rms_norm")
        pane.type("q")
        expect_restored(pane, "gpu-metrics", 0)
    finally:
        pane.close()


def scenario_exits(brickprof, data, workdir):
    """Bad input and a terminal that cannot move the cursor before the screen;
    Ctrl-C (caught, and ignored by the caller), SIGTERM and a crash signal
    after."""
    pane = Pane(workdir, 100, 30)
    try:
        pane.mark("exits")
        pane.run("%s view %s/bad_not_json.txt; echo bad-status=$?" % (brickprof, data))
        screen = pane.wait_text("bad-status=2")
        check("brickprof: %s/bad_not_json.txt: " % data in screen, "no one-line error", screen)
        check(not pane.alternate_screen(), "the screen was taken for bad input", screen)
        pane.run("TERM=dumb %s view %s/tree_small.json; echo dumb-status=$?" % (brickprof, data))
        screen = pane.wait_text("dumb-status=2")
        check("the terminal type 'dumb' cannot move the cursor" in screen,
              "no one-line error for a terminal that cannot move the cursor", screen)
        pane.clear()
        pane.mark("before-ctrl-c")
        pane.run("%s view %s/tree_small.json" % (brickprof, data))
        pane.wait_text("Layer 0", "?Help")
        pane.keys("C-c")
        expect_restored(pane, "before-ctrl-c", 128 + signal.SIGINT)
        # A signal the caller ignores stays ignored: Ctrl-C does nothing, q quits.
        pane.clear()
        pane.mark("sigint-ignored")
        pane.run("sh -c 'trap \"\" INT; exec %s view %s/tree_small.json'" % (brickprof, data))
        pane.wait_text("Layer 0", "?Help")
        pane.keys("C-c")
        pane.type("2")  # still there, and answering
        pane.wait_text("Per-brick timing (")
        pane.type("q")
        expect_restored(pane, "sigint-ignored", 0)
        for sig in (signal.SIGTERM, signal.SIGSEGV):
            pidfile = os.path.join(workdir, "view.pid")
            if os.path.exists(pidfile):
                os.remove(pidfile)
            pane.clear()
            marker = "before-%s" % sig.name
            pane.mark(marker)
            pane.run("sh -c 'echo $$ > %s; exec %s view %s/tree_small.json'"
                     % (pidfile, brickprof, data))
            pane.wait_text("Layer 0", "?Help")
            with open(pidfile) as f:
                os.kill(int(f.read()), sig)
            expect_restored(pane, marker, 128 + sig)
    finally:
        pane.close()


def not_a_terminal(brickprof, data):
    r = subprocess.run([brickprof, "view", data + "/tree_small.json"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    check(r.returncode == 2, "exit %d, not 2, without a terminal" % r.returncode)
    check(r.stdout == "" and r.stderr.count("\n") == 1 and "needs a terminal" in r.stderr,
          "not one line: %r" % r.stderr)


def main():
    # Killed by a timeout: unwind, so each pane's tmux server is closed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    brickprof, data = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    not_a_terminal(brickprof, data)
    if shutil.which("tmux") is None:
        skip("tmux is not installed: the terminal checks are skipped")
    scenarios = [scenario_gpu_trace, scenario_cpu_trace_small_terminal, scenario_diff_and_merged,
                 scenario_diff_verdict, scenario_diff_under_base_lacks, scenario_prompt_names,
                 scenario_python_frames, scenario_memory, scenario_tiles,
                 scenario_tokens_and_cpu_counters, scenario_gpu_metrics,
                 scenario_exits]
    # VIEW_TMUX_ONLY=name,name runs those scenarios alone (while working on one).
    only = os.environ.get("VIEW_TMUX_ONLY")
    if only:
        scenarios = [f for f in scenarios if f.__name__ in only.split(",")]
    failed = 0
    for scenario in scenarios:
        workdir = tempfile.mkdtemp(prefix="view_tmux.")
        try:
            scenario(brickprof, data, workdir)
            print("ok   %s" % scenario.__name__)
        except Failure as e:
            failed += 1
            print("FAIL %s: %s" % (scenario.__name__, e))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    print("%d of %d scenarios passed" % (len(scenarios) - failed, len(scenarios)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
