#!/usr/bin/env python3
"""The length of the function whose body starts at FILE:LINE (brace matching
from the first '{' at or after LINE, strings and // comments skipped).

usage: scripts/dev/fnlen.py FILE:LINE...
"""
import re
import sys


def end_line(path, start):
    lines = open(path, encoding="utf-8").read().split("\n")
    depth, seen = 0, False
    for i in range(start - 1, len(lines)):
        line = re.sub(r'"(\\.|[^"\\])*"', '""', lines[i])
        line = re.sub(r"'(\\.|[^'\\])*'", "''", line).split("//")[0]
        for ch in line:
            if ch == "{":
                depth += 1
                seen = True
            elif ch == "}":
                depth -= 1
        if seen and depth == 0:
            return i + 1
    return len(lines)


for arg in sys.argv[1:]:
    path, start = arg.rsplit(":", 1)
    start = int(start)
    end = end_line(path, start)
    print(f"{path}:{start}-{end} {end - start + 1} lines")
