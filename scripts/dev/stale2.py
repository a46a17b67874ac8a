#!/usr/bin/env python3
"""File names (x.cpp, x.h, x.md ...) named in tracked files that no tracked
file has (generated files excepted).

usage: scripts/dev/stale2.py   (prints FILE LINE PATH per stale name)
"""
import subprocess, re, os
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../..'))
files = subprocess.run(['git','ls-files'],capture_output=True,text=True).stdout.split()
base=set(os.path.basename(f) for f in files)
gen={'install_paths.h','html_shell.cpp','_version.py','brickprof.pc','brickprofConfig.cmake','compile_commands.json','build.ninja'}
pat=re.compile(r'(?<![\w$/.-])([\w/.-]*?([A-Za-z_][\w-]*\.(?:h|cpp|cc|py|md|c|cu|cuh|build|map|sh)))\b')
seen=set()
for f in files:
    if f.startswith('tests/data/'): continue
    try: text=open(f,encoding='utf-8').read()
    except Exception: continue
    for ln,line in enumerate(text.split("\n"),1):
        if line.lstrip().startswith("#include <"): continue
        for m in pat.finditer(line):
            full,b=m.group(1),m.group(2)
            if b in base or b in gen: continue
            if '<' in full: continue
            key=(f,b)
            if key in seen: continue
            seen.add(key); print(f,ln,full)
