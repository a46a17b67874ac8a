#!/usr/bin/env python3
"""Names are data, not terminal commands. A trace's names come from the traced
program: a scope named "evil\\x1b]52;c;...\\x07\\x1b[2J" must not make `brickprof`
write the clipboard of whoever reads the trace, or clear the screen.

Every fixture is copied with every name, label and status (nodes, threads,
program, host, command line, devices, diagnostics, PTX kernels and source,
Python frames, communicators, merged sources) holding EVIL; then every
command a user types on it runs with its stdout on a pseudo-terminal, as in
a shell: every `report` view, text and --json, the file formats, `diff`,
`merge`, `ptx` and `ptx --info`, and error messages that quote a name. The
agent's own files are checked on a program whose names are the same (and
bytes that are not UTF-8): `brickprof run`'s lines, the .tree.txt, .dot and
.folded, and the views of its trace; and `run`'s lines for an output folder
and a command whose names hold them. `brickprof view` runs in tmux, its
bytes to the terminal captured with pipe-pane.

Nothing that reaches the terminal may hold a byte below 0x20 but newline and
tab, DEL, a C1 control (U+0080..U+009F), a bidi override or isolate, or
bytes that are not UTF-8; and the names must still be there, escaped.

usage: names_are_data.py BRICKPROF DATA_DIR EVIL_NAMES_APP AGENT
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tty

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
from checks import check, summary  # noqa: E402
from report_views import report_views  # noqa: E402

# An OSC 52 clipboard write, a clear-screen, CR LF TAB, DEL, a C1 CSI, a
# right-to-left override (as evil_names_app.cpp writes them).
EVIL = "evil\x1b]52;c;cHduZWQ=\x07\x1b[2J\r\n\t\x7f\x9b\u202e|"
# How a text output shows it.
EVIL_SHOWN = "evil\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\r\\n\\t\\x7f\\u009b\\u202e|"
NAME_KEYS = {"name", "program", "cmdline", "host", "label", "cupti", "nvtx", "peaks_source",
             "file", "function", "capture"}

BAD = [
    (re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]"), "a control character"),
    (re.compile(rb"\xc2[\x80-\x9f]"), "a C1 control"),
    (re.compile(rb"\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]"), "a bidi control"),
]


def problems(data):
    """What in `data` a terminal would act on, or ''."""
    found = [what for pattern, what in BAD if pattern.search(data)]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        found.append("bytes that are not UTF-8 (%s)" % e.reason)
    return ", ".join(found)


def shown(data, what):
    bad = problems(data)
    at = ""
    if bad:
        for pattern, _ in BAD:
            m = pattern.search(data)
            if m:
                at = " near %r" % data[max(0, m.start() - 40):m.end() + 20]
                break
    return check(not bad, "%s: %s%s" % (what, bad, at))


def run_on_terminal(args, **kw):
    """Runs `args` with stdout on a pseudo-terminal (raw: no CR added), stderr
    on a pipe; returns (exit code, stdout bytes, stderr bytes)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    proc = subprocess.Popen(args, stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            **kw)
    os.close(slave)
    out = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    err = proc.stderr.read()
    proc.wait(timeout=120)
    return proc.returncode, bytes(out), err


def evil(value):
    return value + EVIL if isinstance(value, str) else value


def poison(node):
    """Every name-like string in a trace's JSON, with EVIL after it (so names
    stay distinct, and "cpu..." devices stay the host)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in NAME_KEYS and isinstance(v, str):
                node[k] = evil(v)
            elif k in ("warnings", "kernels") and isinstance(v, list):
                node[k] = [evil(x) for x in v]
            elif k == "memory" and isinstance(v, list):  # events: "api" names; "source" is a kind
                for event in v:
                    event["api"] = evil(event.get("api", ""))
            elif k == "source" and isinstance(v, str):  # PTX text
                node[k] = v + "\n// " + EVIL + "\n"
            else:
                poison(v)
    elif isinstance(node, list):
        for v in node:
            poison(v)
    return node


def fixtures(data_dir):
    names = ["tree_small.json", "ptx_source.json", "gpu/bricklayer-graph.json",
             "mpi/bricklayer-tp2.json", "cpu/bricklayer-avx2.json"]
    names += ["analyses/" + p.name for p in sorted((data_dir / "analyses").glob("*.json"))
              if p.name != "cycle.json"]
    return names


def check_command(brickprof, args, what, ok_codes=(0,), expect_shown=False):
    code, out, err = run_on_terminal([brickprof] + args)
    check(code in ok_codes, "%s: exit %d (%s)" % (what, code, err.decode("utf-8", "replace")[-300:]))
    shown(out, what + " (stdout)")
    shown(err, what + " (stderr)")
    if expect_shown:
        check(EVIL_SHOWN.encode() in out + err, "%s: the name is not shown escaped" % what)
    return out


def check_report(brickprof, trace, name, views):
    switches, valued, no_json = views
    text_views = [v for v in switches if v != "perfetto"]  # binary: for a file
    check_command(brickprof, ["report", trace], name + ": report", expect_shown=True)
    for v in text_views:
        check_command(brickprof, ["report", "--" + v, trace], "%s: report --%s" % (name, v))
        if v not in no_json:
            check_command(brickprof, ["report", "--json", "--" + v, trace],
                          "%s: report --json --%s" % (name, v))
    check_command(brickprof, ["report", "--tree", trace], name + ": report --tree",
                  expect_shown=True)


def check_fixtures(brickprof, data_dir, tmp, views):
    for rel in fixtures(data_dir):
        name = rel.replace("/", "_")
        trace = json.loads((data_dir / rel).read_text(encoding="utf-8"))
        path = tmp / ("evil_" + name)
        path.write_text(json.dumps(poison(trace)), encoding="utf-8")
        check_report(brickprof, str(path), rel, views)
        # A name given back as an option: matched, and quoted in what is said.
        node = next((n for n in trace["nodes"] if n["kind"] in ("scope", "brick")), None)
        if node:
            check_command(brickprof, ["report", str(path), "--what-if", node["name"] + "=2"],
                          rel + ": --what-if on an evil name", ok_codes=(0, 2))
            check_command(brickprof, ["report", str(path), "--under", node["name"], "--summary"],
                          rel + ": --under an evil name", ok_codes=(0, 2))
        check_command(brickprof, ["diff", str(data_dir / rel), str(path)], rel + ": diff",
                      ok_codes=(0, 1, 2))
        check_command(brickprof, ["diff", str(path), str(path)], rel + ": diff of itself",
                      ok_codes=(0, 1))
        for ptx in trace.get("ptx", []):
            check_command(brickprof, ["ptx", "--info", str(path), ptx["hash"]],
                          rel + ": ptx --info", expect_shown=True)
            if ptx.get("source"):
                # A text of several lines: its newlines and tabs are kept.
                out = check_command(brickprof, ["ptx", str(path), ptx["hash"]], rel + ": ptx")
                check(b"// evil\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\r\n" in out,
                      rel + ": ptx shows the source's escape sequence escaped")
    # merge: its messages quote programs and labels.
    mpi = tmp / "evil_mpi_bricklayer-tp2.json"
    check_command(brickprof, ["merge", str(mpi), str(mpi), "-o", str(tmp / "merged.json")],
                  "merge of one rank twice", ok_codes=(0, 2))
    check_command(brickprof, ["merge", str(mpi), str(tmp / "evil_tree_small.json"), "-o",
                              str(tmp / "merged2.json")], "merge of unrelated traces",
                  ok_codes=(0, 2))


def check_not_utf8_trace(brickprof, tmp):
    """Raw bytes that are not UTF-8 in a trace file: refused (JSON is UTF-8)
    with one printable line, or shown escaped."""
    text = (pathlib.Path(sys.argv[2]) / "tree_small.json").read_bytes()
    path = tmp / "not_utf8.json"
    path.write_bytes(text.replace(b'"RmsNorm"', b'"Rms\xff\xfe\x1b[2JNorm"', 1))
    check_command(brickprof, ["report", str(path)], "a trace with bytes that are not UTF-8",
                  ok_codes=(0, 2))
    bad_name = tmp / "evil\x1b]52;c;eA==\x07name.json"
    check_command(brickprof, ["report", str(bad_name)], "an error quoting a file name",
                  ok_codes=(2,))


def check_agent(brickprof, app, agent, tmp, views):
    out = tmp / "agent"
    out.mkdir()
    env = dict(os.environ, BRICKPROF_AGENT=agent)
    code, stdout, stderr = run_on_terminal(
        [brickprof, "run", "--output", str(out / "evil"), "--formats", "json,tree,dot,folded",
         "--", app], env=env)
    check(code == 0, "run of evil_names_app: exit %d: %r" % (code, stderr[-500:]))
    shown(stdout + stderr, "brickprof run's lines")
    # As each format writes the escaped name: DOT doubles a backslash in a
    # label, folded frames hold ':' for ';'.
    forms = {".tree.txt": lambda s: s, ".dot": lambda s: s.replace("\\", "\\\\"),
             ".folded": lambda s: s.replace(";", ":")}
    for ext, form in forms.items():
        f = out / ("evil" + ext)
        if check(f.exists(), "the agent wrote " + f.name):
            data = f.read_bytes()
            shown(data, "the agent's " + f.name)
            check(form(EVIL_SHOWN).encode() in data,
                  "the agent's %s shows the name escaped" % f.name)
            check(form("bad\\xff\\xfe\\xc3(").encode() in data,
                  "the agent's %s shows bytes that are not UTF-8 as \\xNN" % f.name)
    trace = out / "evil.json"
    if check(trace.exists(), "the agent wrote evil.json"):
        check_report(brickprof, str(trace), "the agent's trace", views)
    return trace


# A folder and a program whose names hold what EVIL holds but a line break
# (the run's manifest is a file of lines), and bytes that are not UTF-8.
EVIL_PATH = os.fsdecode(b"dir\x1b]52;c;eA==\x07\x1b[2J\r\t\x7f\xc2\x9b\xe2\x80\xae\xff\xfe|")
EVIL_PATH_SHOWN = "dir\\x1b]52;c;eA==\\x07\\x1b[2J\\r\\t\\x7f\\u009b\\u202e\\xff\\xfe|"


def check_run_paths(brickprof, data, app, agent, tmp):
    """`brickprof run`'s own lines quote paths and the command as the user gave them: a folder
    and a command name holding control characters and bytes that are not UTF-8 are listed
    escaped, and the files written there are listed (not taken for no trace at all)."""
    folder = tmp / EVIL_PATH
    folder.mkdir()
    env = dict(os.environ, BRICKPROF_AGENT=agent)
    formats = ["json", "tree", "dot"]
    code, stdout, stderr = run_on_terminal(
        [brickprof, "run", "--output", str(folder / "t"), "--formats", ",".join(formats), "--",
         app], env=env)
    shown(stdout + stderr, "brickprof run's lines for a folder with control characters")
    wrote = [l for l in stderr.decode("utf-8", "replace").split("\n") if l.startswith("brickprof: wrote ")]
    check(code == 0 and len(wrote) == len(formats),
          "run into that folder: exit %d, %d of %d files listed: %r" % (code, len(wrote),
                                                                      len(formats), stderr[-600:]))
    check(all(EVIL_PATH_SHOWN in l for l in wrote),
          "run lists the files in that folder escaped: %r" % wrote)
    program = tmp / ("prog" + EVIL_PATH)
    code, stdout, stderr = run_on_terminal([brickprof, "run", "--", str(program)], env=env)
    shown(stdout + stderr, "brickprof run's lines for a command that is not there")
    check(code == 127 and EVIL_PATH_SHOWN.encode() in stderr and stderr.count(b"\n") == 1,
          "run of a missing command with control characters: exit %d, %r" % (code, stderr))
    # Every command that writes a file names it so.
    for args in (["report", str(data / "tree_small.json"), "--summary"],
                 ["diff", str(data / "tree_small.json"), str(data / "tree_small.json")],
                 ["merge", str(data / "tree_small.json")]):
        code, stdout, stderr = run_on_terminal([brickprof] + args + ["-o", str(folder / "out")])
        shown(stdout + stderr, "%s -o into that folder" % args[0])
        check(code == 0 and ("brickprof: wrote %s/out" % folder.as_posix()).encode("utf-8",
              "surrogateescape").replace(os.fsencode(EVIL_PATH), EVIL_PATH_SHOWN.encode()) in stderr,
              "%s -o names the file escaped: exit %d, %r" % (args[0], code, stderr))


def check_view(brickprof, traces, tmp):
    if not shutil.which("tmux"):
        print("view: skipped (no tmux)")
        return
    for i, trace in enumerate(traces):
        sock = str(tmp / ("tmux%d.sock" % i))
        raw = tmp / "view.raw"
        raw.write_bytes(b"")
        tmux = ["tmux", "-S", sock, "-f", "/dev/null"]
        env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="screen-256color")
        env.pop("TMUX", None)
        subprocess.run(tmux + ["new-session", "-d", "-s", "t", "-x", "160", "-y", "45",
                               "sh"], env=env, check=True)
        try:
            subprocess.run(tmux + ["pipe-pane", "-o", "-t", "t", "cat >> '%s'" % raw], check=True)
            subprocess.run(tmux + ["send-keys", "-t", "t", "-l",
                                   "%s view %s\n" % (brickprof, trace)], check=True)
            screen = ""
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                screen = subprocess.run(tmux + ["capture-pane", "-p", "-t", "t"],
                                        capture_output=True, text=True).stdout
                if "brickprof view" in screen and "evil\\x1b]52" in screen:
                    break
                time.sleep(0.1)
            check("evil\\x1b]52" in screen,
                  "view %s: the evil name shown escaped on the screen:\n%s" % (trace, screen))
            # Every view a key away, and the detail pane of the selection.
            for key in ["d", "2", "3", "4", "5", "6", "7", "8", "1", "G", "q"]:
                subprocess.run(tmux + ["send-keys", "-t", "t", key], check=True)
                time.sleep(0.3)
            time.sleep(0.5)
        finally:
            subprocess.run(tmux + ["kill-server"], capture_output=True)
        data = raw.read_bytes()
        check(len(data) > 1000, "view %s: pipe-pane captured the screen (%d bytes)" % (trace,
                                                                                       len(data)))
        # ncurses sends its own escape sequences: look for the name's, and for
        # bytes ncurses never sends in a UTF-8 locale.
        for needle, what in [(b"\x1b]52", "the OSC 52 clipboard write"),
                             (b"\x1b[2J\r", "the name's clear-screen"),
                             (b"\x07", "a BEL"), (b"\x7f", "DEL"),
                             (b"\xc2\x9b", "a C1 CSI"), (b"\xe2\x80\xae", "a bidi override"),
                             (b"\xff", "a byte that is not UTF-8")]:
            check(needle not in data, "view %s: %s reached the terminal" % (trace, what))


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    brickprof, data_dir, app, agent = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    views = report_views(brickprof)
    with tempfile.TemporaryDirectory(prefix="names_are_data.") as t:
        tmp = pathlib.Path(t)
        check_fixtures(brickprof, data_dir, tmp, views)
        check_not_utf8_trace(brickprof, tmp)
        agent_trace = check_agent(brickprof, app, agent, tmp, views)
        check_run_paths(brickprof, data_dir, app, agent, tmp)
        check_view(brickprof, [tmp / "evil_tree_small.json", agent_trace], tmp)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
