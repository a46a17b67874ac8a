#!/usr/bin/env python3
"""Every repository path that a comment, a README or a script names exists.

A moved file leaves its old path behind in comments ("A view lives in
analysis/view_<name>.cpp") that nothing compiles, so nothing else catches it.
Checked in every tracked text file but the recorded traces in tests/data:

* a path from the top of the tree ("agent/io/config.h", "tools/html/js/"),
  anywhere in the text;
* in Markdown, also a link's target; a path relative to the file's folder
  whose first part is a folder there ("views/views.h" in analysis/README.md);
  and a quoted file path (`model/comm.*`, `detail/impl.h`), which must be
  relative to the file's folder or end some tracked file's path.

A path passes when it is a tracked file or folder, a file's stem
("agent/io/trace_stream" for trace_stream.h and .cpp), or a build output
(under BUILD_ROOT, or a target meson knows: "tools/brickprof"). `<name>` and
`*` match any part of a name and `{a,b}` either spelling, as a shell glob
does: at least one file must match.

NOT_PATHS lists what a file names on purpose though it does not exist (a
recipe's new file, an example of an old path); paths_pending.txt
the stale paths in files being rewritten elsewhere. An entry of either that
is no longer needed fails too, so both lists stay current.

usage: paths.py SOURCE_ROOT BUILD_ROOT
"""
import glob
import json
import os
import re
import subprocess
import sys

# Recorded traces (paths of other machines); the move's map from old paths
# to new, whose left column names what is gone by design; and this check
# and its list, which name missing paths to explain them.
SKIP = ("tests/data/", "scripts/dev/trace_paths.txt", "tests/build/paths")

# File -> paths it names that are not meant to exist, each with its reason.
NOT_PATHS = {
    # The recipe for a new view names the files it has the reader create.
    "analysis/README.md": {
        "analyses/stalls.h",
        "analysis/views/view_stalls.cpp",
        "analysis/analyses/stalls.h",
    },
    # Its example of the two spellings of one moved path.
    "scripts/dev/move_paths.py": {"analysis/export/sink.*", "analysis/export/sink.h"},
}

PENDING_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paths_pending.txt")

NAME = r"[\w.<>*{},-]"  # a character of a path's part (with placeholders)
PATH = r"[\w./<>*{},-]"
RELATIVE = re.compile(r"(?<![\w./<>*{}$~-])((?:[\w<>*{}-]%s*/)+[\w<>*{}-]%s*)" % (NAME, NAME))
QUOTED_FILE = re.compile(r"`([\w.<>*-]+(?:/[\w.<>*-]+)*/[\w<>*-]+\.(?:\w+|\*))`")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def tracked_files(source):
    out = subprocess.run(["git", "-C", source, "ls-files", "-z"], capture_output=True, check=True)
    return [f for f in out.stdout.decode().split("\0") if f]


def build_outputs(build):
    """Paths, relative to the build root, of everything meson builds."""
    outputs = set()
    info = os.path.join(build, "meson-info", "intro-targets.json")
    if os.path.exists(info):
        with open(info, encoding="utf-8") as f:
            for target in json.load(f):
                for name in target.get("filename", []):
                    outputs.add(os.path.relpath(name, build))
    return outputs


def expand_braces(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    out = []
    for choice in m.group(1).split(","):
        out += expand_braces(path[: m.start()] + choice + path[m.end() :])
    return out


class Tree:
    def __init__(self, source, build):
        self.source = source
        self.build = build
        self.files = set(tracked_files(source))
        self.folders = set()
        for f in self.files:
            d = os.path.dirname(f)
            while d:
                self.folders.add(d)
                d = os.path.dirname(d)
        self.stems = {os.path.splitext(f)[0] for f in self.files}
        self.outputs = build_outputs(build)
        self.tops = {f.split("/", 1)[0] for f in self.files if "/" in f}
        self.everything = self.files | self.folders | self.stems | self.outputs

    def exists(self, path):
        """Whether `path` (from the top, placeholders allowed) names something."""
        for alternative in expand_braces(path):
            pattern = re.sub(r"<[^>]*>", "*", alternative).rstrip("/")
            if "*" not in pattern:
                if pattern not in self.everything and not os.path.exists(
                    os.path.join(self.build, pattern)
                ):
                    return False
                continue
            # '*' stays within one name, as in a shell.
            within = re.compile("[^/]*".join(re.escape(part) for part in pattern.split("*")))
            if not any(within.fullmatch(c) for c in self.everything) and not glob.glob(
                os.path.join(glob.escape(self.build), pattern)
            ):
                return False
        return True

    def ends_a_path(self, path):
        """Whether some tracked file's path ends with `path`."""
        pattern = re.sub(r"<[^>]*>", "*", path)
        within = re.compile(
            "(.*/)?" + "[^/]*".join(re.escape(part) for part in pattern.split("*"))
        )
        return any(within.fullmatch(c) for c in self.files | self.stems)


def clean(path):
    # A sentence's full stop or a list's comma is not part of the path.
    return path.rstrip(".,")


def stale_paths(tree, name, text):
    """(line, path as written) for each path in `text` that does not exist."""
    top_path = re.compile(
        r"(?<![\w./$~-])((?:%s)/%s*[\w>*}/])" % ("|".join(map(re.escape, tree.tops)), PATH)
    )
    folder = os.path.dirname(name)
    markdown = name.endswith(".md")
    for number, line in enumerate(text.split("\n"), 1):
        found = []  # (path as written, whether it exists)
        starts = set()
        for m in top_path.finditer(line):
            path = clean(m.group(1))
            starts.add(m.start(1))
            found.append((path, tree.exists(path)))
        if markdown:
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r"[a-z]+:", target) or target.startswith("/"):
                    continue  # a URL or an absolute path
                found.append((target, tree.exists(os.path.normpath(os.path.join(folder, target)))))
            for m in RELATIVE.finditer(line):
                path = clean(m.group(1))
                first = path.split("/", 1)[0]
                if m.start(1) in starts or first in tree.tops or not folder:
                    continue
                if os.path.join(folder, first) in tree.folders:
                    starts.add(m.start(1))
                    found.append((path, tree.exists(os.path.normpath(os.path.join(folder, path)))))
            for m in QUOTED_FILE.finditer(line):
                path = m.group(1)
                if m.start(1) in starts or path.split("/", 1)[0] in tree.tops:
                    continue
                here = os.path.normpath(os.path.join(folder, path))
                found.append((path, tree.exists(here) or tree.ends_a_path(path)))
        for path, exists in found:
            if not exists:
                yield number, path


def read_pending():
    pending = set()
    with open(PENDING_FILE, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, path = line.partition(": ")
                pending.add((name, path))
    return pending


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    tree = Tree(argv[1], argv[2])
    pending = read_pending()
    problems, used_not_paths, seen_pending = [], set(), set()
    checked = 0
    for name in sorted(tree.files):
        if name.startswith(SKIP):
            continue
        try:
            with open(os.path.join(tree.source, name), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary, or deleted and not yet committed
        checked += 1
        for number, path in stale_paths(tree, name, text):
            if path in NOT_PATHS.get(name, ()):
                used_not_paths.add((name, path))
            elif (name, path) in pending:
                seen_pending.add((name, path))
            else:
                problems.append(f"{name}:{number}: {path} does not exist")
    for name, paths in sorted(NOT_PATHS.items()):
        for path in sorted(paths):
            if (name, path) not in used_not_paths:
                problems.append(f"{name}: {path} is no longer named: take it off NOT_PATHS")
    for name, path in sorted(pending - seen_pending):
        problems.append(
            f"{name}: {path} is fixed (or no longer named): take it off "
            f"{os.path.basename(PENDING_FILE)}"
        )
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} problems: fix the text or the path, or the list named")
        return 1
    print(f"every path named in {checked} files exists ({len(pending)} pending)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
