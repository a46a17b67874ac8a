#!/usr/bin/env python3
"""The rooms' layering, checked three ways (trace/README.md says why):

* sources: every project include ("room/..." or <brickprof/...>) of every
  file of a room names a room that room may stand on (ALLOWED below);
* build: the compiler's own include graph (`ninja -t deps`) of every object
  of the agent and of trace/ names no header of a room above it;
* link: `libbrickprof.so` takes no input from analysis/ or tools/ (nor
  simdjson, the reader's);
* header: every include path of compile_commands.json that holds
  <brickprof/brickprof.h> is include/.

layering_pending.txt lists the violations still to remove, so each step of
a move shows its progress and nothing new slips in: a violation not listed
fails, and so does a listed one that is gone (take it off the list, or
rewrite the list with --update once the change is meant).

usage: layering.py SOURCE_ROOT BUILD_ROOT [--update]
"""
import json
import os
import re
import shlex
import subprocess
import sys

# Room -> the rooms its files may include (itself always). "api" is the
# public header <brickprof/brickprof.h>; "detail" its <brickprof/detail/*>,
# the ABI the agent shares with it.
ALLOWED = {
    "include": {"api", "detail"},
    "trace": {"api"},
    "agent": {"trace", "api", "detail"},
    "analysis": {"trace", "api"},
    "tools": {"analysis", "trace", "api"},
    "python/native": {"analysis", "trace", "api"},
    "kernels": {"api"},
}
# Rooms whose sources are checked; tests/ and bench/ may include anything.
ROOMS = ["include", "trace", "agent", "analysis", "tools", "python/native", "kernels"]
# What the agent and trace/ must not reach, in the build and link checks.
ABOVE_AGENT = ("analysis/", "tools/")
ABOVE_TRACE = ("agent/", "analysis/", "tools/")

PENDING_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layering_pending.txt")

SOURCE_EXT = (".h", ".hpp", ".cpp", ".cc", ".c", ".cu", ".cuh", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def room_of(path):
    for room in sorted(ROOMS, key=len, reverse=True):
        if path == room or path.startswith(room + "/"):
            return room
    return None


def target_room(name, quote):
    """The room an include names, or None for a system/third-party header."""
    if name.startswith("brickprof/detail/"):
        return "detail"
    if name == "brickprof/brickprof.h":
        return "api"
    if quote == "<":
        return None
    return room_of(name) or (name.split("/")[0] if "/" in name else None)


def source_violations(src):
    files = subprocess.run(["git", "-C", src, "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    found = set()
    for path in files:
        room = room_of(path)
        if room is None or not path.endswith(SOURCE_EXT):
            continue
        # A header's own includes of its folder ("brickprof/detail/abi.h"
        # from include/) resolve inside the room.
        with open(os.path.join(src, path), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = target_room(m.group(2), m.group(1))
                if target is None or target == room or (room == "include" and target in ("api", "detail")):
                    continue
                if target not in ALLOWED[room] and target in set(ROOMS) | {"api", "detail", "tests", "bench"}:
                    found.add(f"{path} includes {m.group(2)}")
    return found


def ninja(build, *args):
    return subprocess.run(["ninja", "-C", build] + list(args), capture_output=True, text=True,
                          check=True).stdout


def build_violations(build):
    """Headers above the agent or trace/ in their objects' compiler deps."""
    found = set()
    target = None
    for line in ninja(build, "-t", "deps").splitlines():
        if line and not line.startswith(" "):
            target = line.split(":")[0]
            continue
        dep = os.path.normpath(line.strip())
        if dep.startswith("../"):
            dep = dep[3:]
        if target is None:
            continue
        if target.startswith(("agent/libbrickprof.so.p/", "agent/libbrickprof_agent_core.a.p/")):
            above = ABOVE_AGENT
            who = "agent"
        elif target.startswith("trace/"):
            above = ABOVE_TRACE
            who = "trace"
        else:
            continue
        if dep.startswith(above):
            found.add(f"{who} objects depend on {dep}")
    return found


def link_violations(build):
    """The agent's link inputs (implicit ones too), and the header's paths."""
    found = set()
    out = ninja(build, "-t", "query", "agent/libbrickprof.so")
    inputs = out.split("  outputs:")[0].splitlines()[2:]
    for line in inputs:
        name = line.strip().lstrip("|").strip()
        if name.startswith(ABOVE_AGENT):
            found.add(f"agent/libbrickprof.so links {name}")
        elif "simdjson" in os.path.basename(name):
            # The reader's parser: trace_reader_dep's, never the agent's.
            found.add(f"agent/libbrickprof.so links {os.path.basename(name)}")
    return found


def header_path_violations(src, build):
    """Every include path that holds <brickprof/brickprof.h> is include/."""
    found = set()
    public = os.path.realpath(os.path.join(src, "include"))
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    for c in commands:
        args = shlex.split(c.get("command", ""))
        for i, arg in enumerate(args):
            path = arg[2:] if arg.startswith("-I") and len(arg) > 2 else (
                args[i + 1] if arg in ("-I", "-isystem") and i + 1 < len(args) else None)
            if path is None:
                continue
            path = os.path.realpath(os.path.join(c["directory"], path))
            if path != public and os.path.exists(os.path.join(path, "brickprof", "brickprof.h")):
                found.add(f"{os.path.relpath(path, os.path.realpath(src))} holds the public header too")
    return found


def read_pending():
    with open(PENDING_FILE, encoding="utf-8") as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def write_pending(found):
    with open(PENDING_FILE, "w", encoding="utf-8") as f:
        f.write("# Layering violations still to remove (tests/build/layering.py); empty\n"
                "# when the agent stands on trace/ only.\n")
        for v in sorted(found):
            f.write(v + "\n")


def main():
    src, build = sys.argv[1], sys.argv[2]
    found = (source_violations(src) | build_violations(build) | link_violations(build)
             | header_path_violations(src, build))
    if "--update" in sys.argv[3:]:
        write_pending(found)
        print(f"layering: {len(found)} pending, written to {PENDING_FILE}")
        return 0
    PENDING = read_pending()
    new = sorted(found - PENDING)
    gone = sorted(PENDING - found)
    for v in new:
        print(f"layering: {v}")
    for v in gone:
        print(f"layering: no longer true, take it off PENDING: {v}")
    print(f"layering: {len(found)} pending of {len(PENDING)} listed, {len(new)} new, "
          f"{len(gone)} gone")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
