#!/usr/bin/env python3
"""Which members of analysis/'s and trace/'s archives the agent's link pulls.

Replays ld's archive resolution over `nm -P` of the agent's own objects: a
member is pulled when it defines a symbol still undefined. Agrees with
`nm libbrickprof.so`; prints each pulled member and one symbol that pulled it.

usage: scripts/dev/resolve.py [BUILD_DIR]   (default build/)
"""
import glob
import os
import subprocess
import sys

os.chdir(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../build"))


def symbols(obj):
    """(defined, undefined) global symbols of one object."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRWVuiw":  # global definitions, weak ones too
            defined.add(name)
    return defined, undefined


agent = glob.glob("agent/libbrickprof.so.p/*.o") + glob.glob("agent/libbrickprof_agent_core.a.p/*.o")
members = sorted(glob.glob("analysis/libbrickprof_analysis.a.p/*.o") + glob.glob("trace/*.a.p/*.o"))
table = {o: symbols(o) for o in agent + members}
defined, undefined = set(), set()
for o in agent:
    defined |= table[o][0]
    undefined |= table[o][1]
pulled, why = [], {}
changed = True
while changed:
    changed = False
    for o in members:
        if o in why:
            continue
        hit = (undefined - defined) & table[o][0]
        if hit:
            pulled.append(o)
            why[o] = min(hit)
            defined |= table[o][0]
            undefined |= table[o][1]
            changed = True
for o in pulled:
    print(o, "|", why[o][:90])
print(len(pulled), "members pulled")
