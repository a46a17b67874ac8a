"""A stream-ordered pool's reserve and a graph's memory node against
brickprof's pool_reserve and graph events, on a GPU (scripts/gpu-check,
"pool reserve and graph memory nodes"). Run as

  pool_reserve.py run                 through libcudart (ctypes): allocations from the
                                      device's default pool that grow its reserve, frees,
                                      a trim to 0; then a captured graph that allocates
                                      and frees 64 MiB, launched twice. Prints the
                                      driver's own figures as one JSON line
                                      (cudaMemPoolGetAttribute: ReservedMemCurrent after
                                      each step, ReservedMemHigh) and, when PyTorch is
                                      there, torch.cuda.memory_reserved() under its
                                      cudaMallocAsync backend
  pool_reserve.py check TRACE OUTPUT  the trace's events against them

What it settles on real CUPTI: that MEMORY2 records state the pool's size
after each allocation and free, and a TRIMMED record the size after the
trim (the reserve events' levels must include each figure and reach the
high-water mark exactly), and that a graph's memory node gets records at
each launch under the launch's correlation id (two graph allocations of at
least 64 MiB). Exits 0 when the trace holds every figure, 1 if not, 77
without a GPU."""
import ctypes
import ctypes.util
import json
import sys

MIB = 1 << 20
RESERVED_CURRENT, RESERVED_HIGH = 5, 6  # cudaMemPoolAttr (driver_types.h)


def cudart():
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12", ctypes.util.find_library("cudart")):
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            pass
    return None


def run():
    rt = cudart()
    count = ctypes.c_int(0)
    if rt is None or rt.cudaGetDeviceCount(ctypes.byref(count)) != 0 or count.value == 0:
        sys.exit(77)

    def ok(r, what):
        if r != 0:
            print(f"{what} failed: {r}", file=sys.stderr)
            sys.exit(1)

    pool = ctypes.c_void_p()
    ok(rt.cudaDeviceGetDefaultMemPool(ctypes.byref(pool), 0), "cudaDeviceGetDefaultMemPool")
    stream = ctypes.c_void_p()
    ok(rt.cudaStreamCreate(ctypes.byref(stream)), "cudaStreamCreate")

    def attr(which):
        v = ctypes.c_uint64(0)
        ok(rt.cudaMemPoolGetAttribute(pool, which, ctypes.byref(v)), "cudaMemPoolGetAttribute")
        return v.value

    reserves = []
    ptrs = []
    for mib in (3, 40, 100):
        p = ctypes.c_void_p()
        ok(rt.cudaMallocAsync(ctypes.byref(p), ctypes.c_size_t(mib * MIB), stream), "cudaMallocAsync")
        ptrs.append(p)
        reserves.append(attr(RESERVED_CURRENT))
    for p in ptrs:
        ok(rt.cudaFreeAsync(p, stream), "cudaFreeAsync")
        reserves.append(attr(RESERVED_CURRENT))
    ok(rt.cudaStreamSynchronize(stream), "cudaStreamSynchronize")
    ok(rt.cudaMemPoolTrimTo(pool, ctypes.c_size_t(0)), "cudaMemPoolTrimTo")
    reserves.append(attr(RESERVED_CURRENT))
    high = attr(RESERVED_HIGH)

    graph, exec_ = ctypes.c_void_p(), ctypes.c_void_p()
    ok(rt.cudaStreamBeginCapture(stream, 0), "cudaStreamBeginCapture")
    scratch = ctypes.c_void_p()
    ok(rt.cudaMallocAsync(ctypes.byref(scratch), ctypes.c_size_t(64 * MIB), stream), "captured cudaMallocAsync")
    ok(rt.cudaFreeAsync(scratch, stream), "captured cudaFreeAsync")
    ok(rt.cudaStreamEndCapture(stream, ctypes.byref(graph)), "cudaStreamEndCapture")
    ok(rt.cudaGraphInstantiate(ctypes.byref(exec_), graph, ctypes.c_ulonglong(0)), "cudaGraphInstantiate")
    for _ in range(2):
        ok(rt.cudaGraphLaunch(exec_, stream), "cudaGraphLaunch")
        ok(rt.cudaStreamSynchronize(stream), "cudaStreamSynchronize")
    figures = {"reserves": reserves, "high": high, "graph_bytes": 64 * MIB,
               "graph_address": scratch.value or 0, "launches": 2}
    try:
        import os
        os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync")
        import torch
        x = [torch.empty(n * MIB, dtype=torch.uint8, device="cuda") for n in (8, 24)]
        figures["torch_reserved"] = torch.cuda.memory_reserved()
        del x
    except Exception as e:  # no PyTorch: the ctypes figures still hold
        figures["torch"] = str(e)
    print(json.dumps(figures))


def check(trace_path, out_path):
    with open(trace_path) as f:
        trace = json.load(f)
    figures = None
    with open(out_path) as f:
        for line in f:
            if line.startswith("{"):
                figures = json.loads(line)
    if figures is None:
        print(f"no figures in {out_path}")
        return 1
    events = trace.get("memory", [])
    levels = [e.get("bytes", 0) for e in events if e["source"] == "pool_reserve" and e["op"] == "alloc"]
    graph = [e for e in events if e["source"] == "graph" and e["op"] == "alloc"]
    failed = False
    print(f"driver's reserve after each step: {figures['reserves']}, high {figures['high']}")
    print(f"trace's pool_reserve levels: {levels}")
    missing = [r for r in figures["reserves"] if r not in levels and r != 0]
    if missing:
        print(f"reserve figures with no event at that level: {missing}")
        failed = True
    if not levels or max(levels) < figures["high"]:
        print("the trace's reserve never reached the driver's high-water mark")
        failed = True
    if "torch_reserved" in figures:
        print(f"torch.cuda.memory_reserved() (cudaMallocAsync backend): {figures['torch_reserved']};"
              f" trace's last level: {levels[-1] if levels else None}")
        if figures["torch_reserved"] not in levels:
            print("PyTorch's reserve is no level of the trace")
            failed = True
    print(f"graph allocations: {[(e.get('address'), e.get('bytes')) for e in graph]}")
    if len(graph) != figures["launches"] or any(e.get("bytes", 0) < figures["graph_bytes"] for e in graph):
        print(f"expected {figures['launches']} graph allocations of >= {figures['graph_bytes']} bytes")
        failed = True
    if any(e["source"] == "async" and e.get("bytes") == figures["graph_bytes"] for e in events):
        print("the captured cudaMallocAsync made an event of its own (counted twice)")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "run":
        run()
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    else:
        print(__doc__)
        sys.exit(2)
