#!/usr/bin/env python3
"""Paths under a room (agent/, analysis/, tools/ ...) named in any tracked
file that do not exist; <name>, * and {a,b} are globbed.

usage: scripts/dev/stale.py   (prints FILE LINE PATH per stale name)
"""
import subprocess, re, os, glob
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../..'))
files = subprocess.run(['git','ls-files'],capture_output=True,text=True).stdout.split()
tops = ('agent','analysis','tools','kernels','python','tests','bench','scripts','build','.ci','include','trace','docs','shared')
pat = re.compile(r'(?<![\w./-])((?:agent|analysis|tools|kernels|python|tests|bench|scripts|\.ci)/[\w./<>*{}-]*[\w>*}])')
out=[]
exist=set(files)
dirs=set()
for f in files:
    p=f.split('/')
    for i in range(1,len(p)): dirs.add('/'.join(p[:i]))
for f in files:
    if f.startswith('tests/data/') or f.endswith(('.json','.gz','.png','.svg','.pftrace','.folded','.dot','.txt')) and 'README' not in f: continue
    try: text=open(f,encoding='utf-8').read()
    except Exception: continue
    for ln,line in enumerate(text.split('\n'),1):
        for m in pat.finditer(line):
            p=m.group(1).rstrip('.')
            if p.startswith('build/'): continue
            q=p
            if '<' in q or '*' in q or '{' in q:
                g=re.sub(r'<[^>]*>','*',q); g=re.sub(r'\{[^}]*\}','*',g)
                if glob.glob(g) : continue
                out.append((f,ln,p,'pattern')); continue
            if q in exist or q in dirs or q.rstrip('/') in dirs: continue
            # allow generated / build outputs
            if q.startswith(('tools/brickprof','kernels/bricklayer','tests/agent/','tests/')) and False: pass
            # allow prefix of file w/o extension, e.g. agent/io/trace_stream* 
            if glob.glob(q+'*'): continue
            out.append((f,ln,p,''))
for o in out: print(*o)
