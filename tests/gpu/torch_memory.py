"""PyTorch's device memory against brickprof's memory events, on a GPU
(scripts/gpu-check, "PyTorch device memory"). Run as

  torch_memory.py run                 a workload: weights, activations in a loop,
                                      a leak per step, and finally an allocation
                                      that cannot fit (caught: torch.OutOfMemoryError);
                                      prints PyTorch's own figures as one JSON line
  torch_memory.py check TRACE OUTPUT  the trace's device-level peak against them

The trace's peak counts what the driver handed out (its cudaMalloc /
cuMemCreate calls), which must hold PyTorch's reserved peak; the
difference is what PyTorch does not count (cuBLAS/cuDNN workspaces that
bypass its allocator, the NCCL and library buffers), printed for the
record. Exits 0 when the trace holds every figure, 1 if not, 77 without a
GPU and PyTorch."""
import json
import sys

DEVICE_SOURCES = {"device", "async", "physical"}


def run():
    try:
        import torch
    except ImportError:
        sys.exit(77)
    if not torch.cuda.is_available():
        sys.exit(77)
    weights = [torch.randn(4096, 4096, device="cuda") for _ in range(4)]
    leak = []
    x = torch.randn(64, 4096, device="cuda")
    for _ in range(8):
        for w in weights:
            x = torch.nn.functional.gelu(x @ w)
        leak.append(torch.empty(1 << 20, device="cuda"))  # 4 MiB a step, kept
    torch.cuda.synchronize()
    oom = False
    try:
        torch.empty(1 << 50, dtype=torch.uint8, device="cuda")  # 1 PiB
    except torch.OutOfMemoryError:
        oom = True
    print(json.dumps({
        "max_reserved": torch.cuda.max_memory_reserved(),
        "max_allocated": torch.cuda.max_memory_allocated(),
        "oom_caught": oom,
        "total": torch.cuda.get_device_properties(0).total_memory,
    }))


def peak_of(events):
    live, now, peak = {}, 0, 0
    for e in events:
        if e.get("device", 0) >= 0x80000000 or e["source"] not in DEVICE_SOURCES:
            continue
        if e.get("result", 0) != 0:
            continue
        address = e["address"]
        if e["op"] == "alloc":
            live[address] = e.get("bytes", 0)
            now += live[address]
            peak = max(peak, now)
        elif e["op"] == "free":
            now -= live.pop(address, 0)
    return peak


def check(trace_path, output_path):
    with open(trace_path) as f:
        trace = json.load(f)
    with open(output_path) as f:
        torch_figures = json.loads(f.read().strip().splitlines()[-1])
    events = trace.get("memory", [])
    failed = [e for e in events if e.get("result", 0) == 2]
    peak = peak_of(events)
    total = trace["devices"][0].get("memory_bytes", 0)
    print(f"trace: {len(events)} memory events, device peak {peak} bytes, "
          f"{len(failed)} out-of-memory failure(s); device memory {total} bytes")
    print(f"torch: max_memory_reserved {torch_figures['max_reserved']}, "
          f"max_memory_allocated {torch_figures['max_allocated']}, total {torch_figures['total']}")
    print(f"driver-level peak minus PyTorch's reserved peak: {peak - torch_figures['max_reserved']} bytes")
    ok = True
    if peak < torch_figures["max_reserved"]:
        print("FAIL: the trace's peak is below what PyTorch reserved"); ok = False
    if total != torch_figures["total"]:
        print("FAIL: devices[0].memory_bytes is not the device's memory"); ok = False
    if torch_figures["oom_caught"] and not failed:
        print("FAIL: PyTorch caught an out-of-memory the trace does not hold"); ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "run":
        run()
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
