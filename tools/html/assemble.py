#!/usr/bin/env python3
"""Assembles the HTML report page: inlines the CSS and JavaScript that page.html names, leaving
one data marker for the writer (tools/html/README.md, "Assembly")."""

import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
TEMPLATE = HERE / "page.html"
# `/*@include PATH*/` inlines a file (relative to tools/html/); `/*@data*/` is where the data goes.
INCLUDE = re.compile(r"/\*@include ([A-Za-z0-9_./-]+)\*/")
DATA_MARKER = "/*@data*/"


class AssemblyError(Exception):
    pass


def _inline(match):
    path = HERE / match.group(1)
    text = path.read_text(encoding="utf-8")
    # Inline code ends its element at the first `</style` or `</script` it contains.
    if re.search(r"</(script|style)", text, re.IGNORECASE):
        raise AssemblyError(f"{path}: contains a closing </script> or </style> tag")
    if DATA_MARKER in text:
        raise AssemblyError(f"{path}: contains the data marker {DATA_MARKER}")
    return text.rstrip("\n")


def shell():
    """The page with every include inlined and the data marker left in place, once."""
    page = INCLUDE.sub(_inline, TEMPLATE.read_text(encoding="utf-8"))
    if page.count(DATA_MARKER) != 1:
        raise AssemblyError(f"{TEMPLATE}: expected the data marker {DATA_MARKER} exactly once")
    return page


def script_json(data):
    """JSON text that is safe inside <script type="application/json">: `<` only occurs inside
    strings, and as \\u003c it can neither close the element nor open a comment."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c")


def fill(page_shell, data):
    before, after = page_shell.split(DATA_MARKER)
    return before + script_json(data) + after


def main(argv):
    if len(argv) != 2:
        print("usage: assemble.py OUT.html  (the page shell with its data marker)", file=sys.stderr)
        return 2
    try:
        text = shell()
    except (OSError, AssemblyError) as e:
        print(f"assemble.py: {e}", file=sys.stderr)
        return 2
    pathlib.Path(argv[1]).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
