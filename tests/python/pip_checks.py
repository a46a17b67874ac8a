"""Run by pip_test.py with the fresh venv's python (its bin/ first on PATH)."""
import gzip
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import brickprof

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import big_trace  # noqa: E402
from checks import check, summary  # noqa: E402

APP = r'''
import array
import sys
import time
import brickprof
import numpy as np

@brickprof.scope("tokenize")
def tokenize():
    time.sleep(0.001)

print("agent loaded:", brickprof.is_enabled())
for i in range(2):
    with brickprof.layer(i):
        with brickprof.brick("RmsNorm", 4096):
            time.sleep(0.002)
            brickprof.checksum("out", np.arange(4096, dtype=np.float32) / 1024 - 2)
            brickprof.checksum("ids", array.array("i", range(5)))
        with brickprof.brick(brickprof.Brick.GateProjection, 1024):
            time.sleep(0.001)
        with brickprof.brick("my_custom_brick", 8):
            brickprof.set_shapes("f32", [(1, 8), (8, 8)], (1, 8))
            brickprof.mem_alloc(0x10000 + i * 0x1000, 4096, "kv_cache")
            time.sleep(0.001)
        tokenize()
        brickprof.counter("l2_hit_rate", 0.5 + i / 4)
        brickprof.tokens(3)
brickprof.mem_free(0x10000, "kv_cache")
brickprof.mem_free(0x11000, "kv_cache")
'''


def fnv1a(data, h=0xcbf29ce484222325):
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


# brickprof.checksum of a CUDA array: device memory written through the fake
# driver (tests/fakes/cuda_driver, whose memory holds data when it runs
# kernels on the emulator: FAKE_CUDA_KERNELS) and handed over as an object with
# __cuda_array_interface__, as a CUDA torch tensor is (Numba's interface,
# version 3). Its 1000 floats are 4000 bytes: a digest's FNV-1a is that of
# the bytes.
DEVICE_APP = r'''
import ctypes
import struct
import sys
import brickprof

cuda = ctypes.CDLL("libcuda.so.1")
u64 = ctypes.c_uint64
cuda.cuMemAlloc_v2.argtypes = [ctypes.POINTER(u64), ctypes.c_size_t]
cuda.cuMemcpyHtoD_v2.argtypes = [u64, ctypes.c_void_p, ctypes.c_size_t]


def check(result, what):
    if result != 0:
        sys.exit("%s failed: %d" % (what, result))


class DeviceArray:
    def __init__(self, address, count):
        self.__cuda_array_interface__ = {"shape": (count,), "typestr": "<f4",
                                         "data": (address, False), "strides": None,
                                         "version": 3, "stream": None}


check(cuda.cuInit(0), "cuInit")
device = ctypes.c_int()
check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
ctx = ctypes.c_void_p()
check(cuda.cuCtxCreate_v4(ctypes.byref(ctx), None, 0, device), "cuCtxCreate")
data = struct.pack("<1000f", *[i / 8 - 40 for i in range(1000)])
ptr = u64()
check(cuda.cuMemAlloc_v2(ctypes.byref(ptr), len(data)), "cuMemAlloc")
check(cuda.cuMemcpyHtoD_v2(ptr.value, data, len(data)), "cuMemcpyHtoD")
with brickprof.brick("Residual", 1000):
    brickprof.checksum("device_out", DeviceArray(ptr.value, 1000))
strided = DeviceArray(ptr.value, 10)
strided.__cuda_array_interface__["strides"] = (8,)
try:
    brickprof.checksum("strided", strided)
    sys.exit("a strided CUDA array was taken")
except ValueError as e:
    print(e)
print("ok")
'''


def check_device_checksum(tmp, fake_cuda_dir):
    """brickprof.checksum of a CUDA array on the fake driver: the digest of the bytes the
    program wrote to the device, copied by the agent (source host-copy)."""
    app = os.path.join(tmp, "device_app.py")
    with open(app, "w") as f:
        f.write(DEVICE_APP)
    prefix = os.path.join(tmp, "device")
    env = dict(os.environ, LD_LIBRARY_PATH=fake_cuda_dir)
    r = subprocess.run(["brickprof", "run", "--output", prefix, "--", sys.executable, app],
                       capture_output=True, text=True, env=env)
    if not check(r.returncode == 0 and r.stdout.endswith("ok\n") and "not C-contiguous" in r.stdout,
                 "the CUDA array program: exit %d, %r %r" % (r.returncode, r.stdout, r.stderr)):
        return
    with open(prefix + ".json") as f:
        t = json.load(f)
    sums = [c for c in t.get("checksums", []) if c["name"] == "device_out"]
    data = struct.pack("<1000f", *[i / 8 - 40 for i in range(1000)])
    check(len(sums) == 1 and sums[0]["source"] == "host-copy" and sums[0]["type"] == "f32" and
          sums[0]["count"] == 1000 and int(sums[0]["fnv1a"], 16) == fnv1a(data),
          "the CUDA array's digest: %r" % sums)
    check(not [c for c in t.get("checksums", []) if c["name"] == "strided"],
          "the strided CUDA array was digested")


def tree_fnv1a(data):
    """The digest's hash (trace/README.md): FNV-1a of each 4096-byte chunk,
    then groups of 64 hashes folded (FNV-1a over their little-endian bytes)
    until one is left."""
    level = [fnv1a(data[i:i + 4096]) for i in range(0, len(data), 4096)] or [fnv1a(b"")]
    while len(level) > 1:
        level = [fnv1a(b"".join(x.to_bytes(8, "little") for x in level[g:g + 64]))
                 for g in range(0, len(level), 64)]
    return level[0]


def check_checksums(path):
    """brickprof.checksum's digests: on each layer's RmsNorm, as numpy computes them."""
    import array
    import numpy as np
    with open(path) as f:
        t = json.load(f)
    sums = t.get("checksums", [])
    check(len(sums) == 4, "%d checksums in the trace, the script took 4" % len(sums))
    names = {n["id"]: n["name"] for n in t["nodes"]}
    out = np.arange(4096, dtype=np.float32) / 1024 - 2
    ids = array.array("i", range(5))
    for c in sums:
        check(names.get(c["node"]) == "RmsNorm", "a checksum on %r" % names.get(c["node"]))
        want = {"out": ("f32", 4096, out.tobytes(), float(out.astype(np.float64).sum())),
                "ids": ("i32", 5, ids.tobytes(), 10.0)}.get(c["name"])
        if not check(want is not None, "a checksum named %r" % c["name"]):
            continue
        dtype, count, data, total = want
        check(c["type"] == dtype and c["count"] == count and c["source"] == "program",
              "checksum %s: %s %s %s" % (c["name"], c["type"], c["count"], c["source"]))
        check(int(c["fnv1a"], 16) == tree_fnv1a(data), "checksum %s: FNV-1a %s" % (c["name"],
                                                                                     c["fnv1a"]))
        check(abs(c["sum"] - total) <= 1e-9, "checksum %s: sum %r, numpy says %r"
              % (c["name"], c["sum"], total))


def report_bricks(path):
    r = subprocess.run(["brickprof", "report", "--json", "--summary", path], capture_output=True,
                       text=True)
    check(r.returncode == 0, "report --json %s: %s" % (path, r.stderr))
    return json.loads(r.stdout)["summary"]["bricks"] if r.returncode == 0 else []


def compare_bricks(trace, path):
    """The bricks table, and totals summed from the nodes, against report --json."""
    want = report_bricks(path)
    got = trace.bricks.to_dict("records")
    check(len(got) == len(want), "%s: %d bricks loaded, report has %d" % (path, len(got),
                                                                            len(want)))
    for g, w in zip(got, want):
        for key, value in w.items():
            same = abs(g[key] - value) <= 1e-9 * abs(value) if isinstance(value, float) \
                else g[key] == value
            check(same, "%s: brick %s %s is %r, report says %r" % (path, w["name"], key, g[key],
                                                                   value))
    nodes = trace.nodes
    bricks = nodes[nodes["kind"] == "brick"]
    raw_names = bricks["name"].astype(str)
    total = bricks.groupby(raw_names, sort=False)["duration_ns"].sum()
    count = bricks.groupby(raw_names, sort=False).size()
    # A brick's GPU time is its kernels' (README.md).
    gpu = nodes[(nodes["kind"] == "kernel") & (nodes["brick"] >= 0)]
    gpu_by_brick = gpu.groupby(nodes.loc[gpu["brick"], "name"].astype(str).to_numpy())[
        "duration_ns"].sum()
    for w in want:
        check(total.get(w["name"]) == w["total_ns"] and count.get(w["name"]) == w["count"],
              "%s: nodes sum to %s ns in %s for %s, report says %d in %d"
              % (path, total.get(w["name"]), count.get(w["name"]), w["name"], w["total_ns"],
                 w["count"]))
        check(gpu_by_brick.get(w["name"], 0) == w["gpu_ns"],
              "%s: GPU time under %s sums to %s, report says %d"
              % (path, w["name"], gpu_by_brick.get(w["name"], 0), w["gpu_ns"]))


def check_memory_and_shapes(path):
    """The script's mem_alloc/mem_free calls in the trace's `memory` section
    (source program, pool kv_cache, under my_custom_brick, with the script's
    line in their Python stack) and its set_shapes on every my_custom_brick."""
    with open(path) as f:
        raw = json.load(f)
    nodes = raw["nodes"]
    events = [e for e in raw.get("memory", []) if e["source"] == "program"]
    allocs = [e for e in events if e["op"] == "alloc"]
    frees = [e for e in events if e["op"] == "free"]
    check(len(allocs) == 2 and len(frees) == 2,
          "%s: %d program allocs and %d frees, the script made 2 and 2" % (path, len(allocs),
                                                                        len(frees)))
    check(all(e["api"] == "kv_cache" for e in events), "pool names: %s" % events)
    check(sorted(e["bytes"] for e in allocs) == [4096, 4096], "alloc bytes: %s" % allocs)
    check(sorted(int(e["address"], 16) for e in allocs) == [0x10000, 0x11000] and
          sorted(int(e["address"], 16) for e in frees) == [0x10000, 0x11000],
          "addresses: %s" % events)
    check(all(e.get("scope") is not None and nodes[e["scope"]]["name"] == "my_custom_brick"
              for e in allocs), "the allocations are not under my_custom_brick: %s" % allocs)
    check(all(e.get("scope") is None for e in frees), "the frees are outside every scope")
    line = APP.splitlines().index(next(l for l in APP.splitlines() if "mem_alloc" in l)) + 1
    frames = raw.get("python_frames", [])
    stacks = raw.get("python_stacks", [])
    for e in allocs:
        stack = stacks[e["python_stack"]] if "python_stack" in e else []
        here = [frames[f] for f in stack]
        check(any(f["file"].endswith("app.py") and f["line"] == line for f in here),
              "alloc at %s: its Python stack %s has no app.py:%d" % (e["address"], here, line))
    shaped = {s["node"]: s for s in raw.get("shapes", [])}
    custom = [n["id"] for n in nodes if n["name"] == "my_custom_brick"]
    for n in custom:
        s = shaped.get(n)
        check(s is not None and s["dtype"] == "f32" and s["inputs"] == [[1, 8], [8, 8]] and
              s["output"] == [1, 8], "my_custom_brick %d: shape %s" % (n, s))


def main():
    data, work = sys.argv[1:3]
    tmp = tempfile.mkdtemp(prefix="brickprof-pip-")
    try:
        check(shutil.which("brickprof") == os.path.join(os.path.dirname(sys.executable),
                                                        "brickprof"),
              "brickprof on PATH is %s, not the venv's" % shutil.which("brickprof"))
        r = subprocess.run(["brickprof", "--version"], capture_output=True, text=True)
        check(r.stdout.strip() == "brickprof " + brickprof.__version__,
              "brickprof --version printed %r, the module is %s" % (r.stdout,
                                                                    brickprof.__version__))
        app = os.path.join(tmp, "app.py")
        with open(app, "w") as f:
            f.write(APP)
        # Without the agent: the scopes do nothing, the script runs as it is.
        r = subprocess.run([sys.executable, app], capture_output=True, text=True)
        check(r.returncode == 0 and "agent loaded: False" in r.stdout,
              "the script without the agent: exit %d, %r %r" % (r.returncode, r.stdout,
                                                                 r.stderr))
        # Under the venv's brickprof run, which finds the agent in the package.
        prefix = os.path.join(tmp, "app")
        r = subprocess.run(["brickprof", "run", "--formats", "json,json.gz", "--output", prefix,
                            "--", "python3", app], capture_output=True, text=True)
        check(r.returncode == 0 and "agent loaded: True" in r.stdout,
              "brickprof run -- python3 app.py: exit %d, %r %r" % (r.returncode, r.stdout,
                                                                   r.stderr))
        if check(os.path.exists(prefix + ".json"), "no trace " + prefix + ".json"):
            t = brickprof.load(prefix + ".json")
            names = set(t.bricks["name"])
            check({"RmsNorm", "GateProjection", "my_custom_brick"} <= names,
                  "the script's bricks are not all in the trace: %s" % sorted(names))
            check(set(t.nodes[t.nodes["kind"] == "layer"]["name"].astype(str)) ==
                  {"Layer 0", "Layer 1"}, "the script's layers are not in the trace")
            check((t.nodes["name"] == "tokenize").sum() == 2, "the decorated scope ran twice")
            check(t.nodes.loc[t.nodes["name"] == "RmsNorm", "path"].astype(str).tolist() ==
                  ["Layer 0/RmsNorm", "Layer 1/RmsNorm"], "scope paths")
            compare_bricks(t, prefix + ".json")
            check_memory_and_shapes(prefix + ".json")
            check_checksums(prefix + ".json")
            if os.environ.get("FAKE_CUDA_DIR"):
                check_device_checksum(tmp, os.environ["FAKE_CUDA_DIR"])
            with open(prefix + ".json") as f:
                counters = json.load(f).get("counters", [])
            check([c["tokens"] for c in counters if "tokens" in c] == [3, 3] and
                  [c["value"] for c in counters if c.get("name") == "l2_hit_rate"] ==
                  [0.5, 0.75], "brickprof.tokens and brickprof.counter in the trace: %r" % counters)
            gz = brickprof.load(prefix + ".json.gz")
            check(gz.bricks.equals(t.bricks) and gz.nodes.equals(t.nodes),
                  "the json.gz loads differently from the json")
        fixture = os.path.join(data, "gpu", "bricklayer-graph.json")
        g = brickprof.load(fixture)
        check(len(g.kernels) == 240, "GPU fixture: %d kernels" % len(g.kernels))
        check((g.kernels["start_ns"] >= g.kernels["api_start_ns"]).all(),
              "GPU fixture: a kernel starts before its launch")
        compare_bricks(g, fixture)
        fixture_gz = os.path.join(tmp, "fixture.json.gz")
        with open(fixture, "rb") as src, gzip.open(fixture_gz, "wb") as dst:
            shutil.copyfileobj(src, dst)
        check(brickprof.load(fixture_gz).kernels.equals(g.kernels), "fixture.json.gz differs")
        try:
            brickprof.load(os.path.join(data, "bad_not_json.txt"))
            check(False, "a file that is not a trace loaded")
        except brickprof.TraceError as e:
            check("bad_not_json.txt" in str(e), "TraceError does not name the file: %s" % e)
        # Load times (printed, not asserted).
        for nodes in (100_000, 1_000_000):
            path = os.path.join(tmp, "big-%d.json" % nodes)
            big_trace.write(path, nodes)
            start = time.perf_counter()
            t = brickprof.load(path)
            took = time.perf_counter() - start
            print("load: %d nodes (%d kernels), %.1f MB: %.2f s" % (
                len(t.nodes), len(t.kernels), os.path.getsize(path) / 1e6, took))
            os.remove(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
