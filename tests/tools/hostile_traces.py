#!/usr/bin/env python3
"""Hostile traces for the report views: shapes a real program can produce
that punish any view that recurses on depth, copies ancestor paths or
names per node, or prints text quadratic in depth.

- deep: one thread, a chain of DEPTH nested scopes (a layer on top, a brick
  near the bottom, scopes between), kernels, copies (round trips of one
  host range) and memsets launched from the deepest levels, and a second
  thread with a short nest so there is cross-lane work;
- names: NAMES distinct names: bricks each launching one kernel of its own
  name, with work figures (roofline rows) and API times (launches);
- huge: names of several MB (a brick, a scope, a kernel, a copy), thousands
  of GPU operations under them (copies going back and forth), idle gaps
  between them;
- threads: THREADS threads, each with one brick.

usage: hostile_traces.py OUT_DIR [--depth N] [--names N] [--huge-mb N] [--threads N]
Writes OUT_DIR/{deep,names,huge,threads}.json.
"""
import argparse
import os


class Writer:
    """Streams a brickprof/1 trace: nodes are written as they are added."""

    def __init__(self, path, program, threads=0):
        self.f = open(path, "w", encoding="utf-8")
        self.count = 0
        self.f.write('{"schema":"brickprof/1","process":{"pid":1,"program":"%s",'
                     '"start_ns":0,"end_ns":0},"devices":[{"id":0,"name":"Test GPU",'
                     '"sm_count":1}],"threads":[' % program)
        self.f.write(",".join('{"tid":%d,"name":"worker %d"}' % (t + 1, t) for t in range(threads)))
        self.f.write('],"nodes":[\n')

    def node(self, kind, name, parent, thread, start, end, extra=""):
        sep = ",\n" if self.count else ""
        parent_text = "null" if parent is None else str(parent)
        self.f.write('%s{"id":%d,"kind":"%s","name":"%s","parent":%s,"thread":%d,'
                     '"start_ns":%d,"end_ns":%d%s}'
                     % (sep, self.count, kind, name, parent_text, thread, start, end, extra))
        self.count += 1
        return self.count - 1

    def close(self):
        self.f.write('\n],"edges":[]}\n')
        self.f.close()


def gpu(stream, correlation, api_start, api_end, more=""):
    return (',"device":0,"stream":%d,"correlation":%d,"api_start_ns":%d,"api_end_ns":%d%s'
            % (stream, correlation, api_start, api_end, more))


def kernel(name_extra=""):
    return ',"grid":[1,1,1],"block":[32,1,1],"smem":0' + name_extra


def copy(direction, addr, size=1 << 20):
    src, dst = (addr, 0x7f000000) if direction == "H2D" else (0x7f000000, addr)
    return (',"bytes":%d,"direction":"%s","src_kind":"pageable","dst_kind":"device",'
            '"src_addr":%d,"dst_addr":%d' % (size, direction, src, dst))


def deep(path, depth):
    w = Writer(path, "deep")
    ops = max(depth // 10, 1)
    span = 100 * (depth + 4 * ops) + 1000
    parent = None
    for level in range(depth):
        if level == 0:
            kind, name, extra = "layer", "Layer 0", ',"index":0'
        elif level == depth - 2:
            kind, name, extra = "brick", "RmsNorm", ',"brick_id":0,"category":"Norm","elements":8'
        else:
            kind, name, extra = "scope", "nest %d" % (level % 3), ""
        parent = w.node(kind, name, parent, 1, level, span - level, extra)
    # GPU work from the deepest scope: kernels, copy round trips, memsets,
    # with idle gaps between them that the host caused.
    t = depth + 100
    for i in range(ops):
        api = t
        start = t + 40
        if i % 4 == 0:
            w.node("kernel", "deep_kernel", parent, 1, start, start + 20,
                   gpu(1, i, api, api + 10, kernel(',"flops":1e6,"bytes_moved":1e4')))
        elif i % 4 == 1:
            w.node("transfer", "cudaMemcpyAsync", parent, 1, start, start + 20,
                   gpu(1, i, api, api + 10, copy("D2H", 0x1000)))
        elif i % 4 == 2:
            w.node("transfer", "cudaMemcpyAsync", parent, 1, start, start + 20,
                   gpu(1, i, api, api + 10, copy("H2D", 0x1000)))
        else:
            w.node("memset", "memset", parent, 1, start, start + 20,
                   gpu(2, i, api, api + 10, ',"bytes":4096'))
        t += 100
    # A second thread: a short nest with its own kernels.
    root = w.node("scope", "worker", None, 2, 0, span)
    for i in range(min(ops, 1000)):
        w.node("kernel", "worker_kernel", root, 2, 50 + 10 * i, 55 + 10 * i,
               gpu(3, ops + i, 45 + 10 * i, 48 + 10 * i, kernel()))
    w.close()


def names(path, count):
    w = Writer(path, "names")
    bricks = count // 2
    span = 100 * bricks + 100
    root = w.node("scope", "all", None, 1, 0, span)
    for i in range(bricks):
        t = 100 * i + 10
        b = w.node("brick", "brick_%07d" % i, root, 1, t, t + 80,
                   ',"brick_id":-1,"category":"Other","elements":%d,"flops":1e5,'
                   '"bytes_moved":1e3' % (i % 97))
        w.node("kernel", "kernel_%07d" % i, b, 1, t + 30, t + 30 + (i % 50),
               gpu(1, i, t + 5, t + 15, kernel()))
    w.close()


def huge(path, megabytes):
    # A node's name is written out in full in every node that carries it,
    # so only a few nodes have huge names; thousands of short-named GPU
    # operations under them make any per-operation copy of a name huge.
    size = megabytes << 20
    w = Writer(path, "huge")
    ops = 6000  # 1500 round trips of one host range: 6 GB if each copied a 4 MB name
    span = 100 * ops + 1000
    layer = w.node("layer", "Layer 0", None, 1, 0, span, ',"index":0')
    brick = w.node("brick", "B" * size, layer, 1, 1, span - 1,
                   ',"brick_id":-1,"category":"Other","elements":1')
    scope = w.node("scope", "S" * size, brick, 1, 2, span - 2)
    w.node("kernel", "K" * size, scope, 1, 40, 60,
           gpu(1, ops, 10, 20, kernel(',"flops":1e6,"bytes_moved":1e4')))
    w.node("transfer", "C" * size, scope, 1, 70, 90, gpu(1, ops + 1, 62, 65, copy("H2D", 0x3000)))
    t = 100
    for i in range(ops):
        if i % 2 == 0:
            w.node("kernel", "k", scope, 1, t + 40, t + 60,
                   gpu(1, i, t, t + 10, kernel(',"flops":1e6,"bytes_moved":1e4')))
        else:
            w.node("transfer", "c", scope, 1, t + 40, t + 60,
                   gpu(1, i, t, t + 10, copy("H2D" if i % 4 == 1 else "D2H", 0x2000)))
        t += 100
    w.close()


def threads(path, count):
    # COUNT threads, each one root brick: per-thread state and lanes.
    w = Writer(path, "threads", count)
    for i in range(count):
        w.node("brick", "RmsNorm", None, i + 1, i, i + 1,
               ',"brick_id":0,"category":"Norm","elements":8')
    w.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--depth", type=int, default=100_000)
    ap.add_argument("--names", type=int, default=1_000_000)
    ap.add_argument("--huge-mb", type=int, default=4)
    ap.add_argument("--threads", type=int, default=100_000)
    o = ap.parse_args()
    os.makedirs(o.out_dir, exist_ok=True)
    deep(os.path.join(o.out_dir, "deep.json"), o.depth)
    names(os.path.join(o.out_dir, "names.json"), o.names)
    huge(os.path.join(o.out_dir, "huge.json"), o.huge_mb)
    threads(os.path.join(o.out_dir, "threads.json"), o.threads)


if __name__ == "__main__":
    main()
