"""Prints, for python_layout_test, the line tables of many code objects (this
interpreter's own standard library, every nested function) and the line
CPython gives each code unit, one JSON object per line:
{"first": co_firstlineno, "table": hex, "lines": [line per 2-byte unit]}.
The lines come from the interpreter's public API: code.co_lines() (3.10+;
None is -1), dis.findlinestarts (3.9)."""
import dis
import json
import sys

MODULES = ("asyncio.base_events", "json.decoder", "inspect", "dis", "typing", "argparse")


def codes(code):
    yield code
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            yield from codes(const)


def lines_of(code):
    units = len(code.co_code) // 2
    lines = [-1] * units
    if sys.version_info >= (3, 10):
        for start, end, line in code.co_lines():
            for unit in range(start // 2, min(end // 2, units)):
                lines[unit] = -1 if line is None else line
    else:
        starts = list(dis.findlinestarts(code))
        for i, (offset, line) in enumerate(starts):
            end = starts[i + 1][0] if i + 1 < len(starts) else 2 * units
            for unit in range(offset // 2, end // 2):
                lines[unit] = line
    return lines


def main():
    for name in MODULES:
        module = __import__(name, fromlist=["_"])
        with open(module.__file__, encoding="utf-8") as f:
            top = compile(f.read(), module.__file__, "exec")
        for code in codes(top):
            table = code.co_lnotab if sys.version_info < (3, 10) else code.co_linetable
            print(json.dumps({"first": code.co_firstlineno, "table": table.hex(),
                              "lines": lines_of(code)}))


if __name__ == "__main__":
    main()
