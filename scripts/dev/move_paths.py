#!/usr/bin/env python3
"""Moves files by a map of old -> new paths and rewrites every reference.

The map (scripts/dev/trace_paths.txt: `old new` per line, # comments) names
files; a reference is an old path with or without its extension (so
`analysis/export/sink.*` and `analysis/export/sink.h` both follow), in any
tracked text file but the test data: include lines, meson files, comments,
READMEs. A block of project includes that was sorted stays sorted.

usage: scripts/dev/move_paths.py MAP            git mv every file, rewrite all
       scripts/dev/move_paths.py MAP --rewrite-only [FILE...]
                                                rewrite only (a branch made
                                                before the move: its own files)
"""
import os
import re
import subprocess
import sys

SKIP_PREFIXES = ("tests/data/",)
TEXT_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".c", ".cu", ".cuh", ".py", ".md", ".build",
                 ".txt", ".sh", ".js", ".css", ".html", ".in", ".toml", ".cfg", ".map")
INCLUDE = re.compile(r'^#include "[^"]+"\s*$')


def read_map(path):
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                old, new = line.split()
                pairs.append((old, new))
    return pairs


def stems(pairs):
    """old stem -> new stem; a .h and its .cpp must move together."""
    table = {}
    for old, new in pairs:
        old_stem, new_stem = os.path.splitext(old)[0], os.path.splitext(new)[0]
        if table.setdefault(old_stem, new_stem) != new_stem:
            sys.exit(f"move_paths: {old_stem}.* goes to two places")
    return table


def rewriter(table):
    # Longest first; a stem is a whole path: not preceded by a path character
    # (tests/analysis/... is not analysis/...) nor followed by a word one.
    keys = sorted(table, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w/.-])(" + "|".join(re.escape(k) for k in keys) + r")(?![\w])")
    return lambda text: pattern.sub(lambda m: table[m.group(1)], text)


def sorted_blocks(old_lines, new_lines):
    """Re-sorts each run of project includes that was sorted before."""
    out = list(new_lines)
    i = 0
    while i < len(out):
        if not INCLUDE.match(out[i]):
            i += 1
            continue
        j = i
        while j < len(out) and INCLUDE.match(out[j]):
            j += 1
        if old_lines[i:j] == sorted(old_lines[i:j]):
            out[i:j] = sorted(out[i:j])
        i = j
    return out


def rewrite(path, apply):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
        return False
    new = apply(text)
    if new == text:
        return False
    old_lines, new_lines = text.split("\n"), new.split("\n")
    if len(old_lines) == len(new_lines):
        new = "\n".join(sorted_blocks(old_lines, new_lines))
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    return True


def tracked_files():
    out = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout
    return [f for f in out.split("\n") if f and not f.startswith(SKIP_PREFIXES)
            and (f.endswith(TEXT_SUFFIXES) or os.path.basename(f) in ("meson.build", "README"))]


def main():
    os.chdir(subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                            text=True, check=True).stdout.strip())
    pairs = read_map(sys.argv[1])
    apply = rewriter(stems(pairs))
    rest = sys.argv[2:]
    if rest[:1] == ["--rewrite-only"]:
        files = rest[1:] or tracked_files()
    else:
        for old, new in pairs:
            os.makedirs(os.path.dirname(new), exist_ok=True)
            subprocess.run(["git", "mv", old, new], check=True)
        files = tracked_files()
    changed = [f for f in files if rewrite(f, apply)]
    print(f"move_paths: {len(changed)} files rewritten")


if __name__ == "__main__":
    main()
