#!/usr/bin/env python3
"""Relative paths with a folder (a/b.cpp) named in tracked files that no
tracked file ends with.

usage: scripts/dev/stale3.py   (prints FILE LINE PATH per stale name)
"""
import subprocess, re, os
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../..'))
files = subprocess.run(['git','ls-files'],capture_output=True,text=True).stdout.split()
pat=re.compile(r'(?<![\w$/.-])((?:[\w-]+/)+[\w-]+\.(?:h|cpp|py|md|c|build|map|js|css))\b')
for f in files:
    if f.startswith('tests/data/'): continue
    try: text=open(f,encoding='utf-8').read()
    except Exception: continue
    for ln,line in enumerate(text.split('\n'),1):
        if line.lstrip().startswith('#include <'): continue
        for m in pat.finditer(line):
            p=m.group(1)
            if any(x==p or x.endswith('/'+p) for x in files): continue
            if p.startswith(('sys/','nvtx3/','spdlog/','brickprof/','linux/','bits/','torch/','CLI/','nlohmann/','fmt/')): continue
            print(f,ln,p)
