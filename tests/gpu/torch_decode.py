#!/usr/bin/env python3
"""A decode loop in plain PyTorch, for comparing profilers' overhead
(scripts/gpu-check): each step, in an NVTX range "decode token", runs a
small transformer's layers on one token. Prints bricklayer's decode line,
"decode: N tokens x 1 seq in T ms (R tokens/s, S ms/step)", timing the
steps only. PEER_TORCH_PROFILER=1: the steps run under torch.profiler
(CPU and CUDA activities), its trace written after the timing.
  torch_decode.py [TOKENS] [LAYERS] [HIDDEN]"""
import os
import sys
import time

import torch


def main():
    tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    layers = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    hidden = int(sys.argv[3]) if len(sys.argv) > 3 else 2048
    dev = "cuda"
    torch.manual_seed(0)
    w = [(torch.randn(hidden, 3 * hidden, device=dev, dtype=torch.float16) * 0.02,
          torch.randn(hidden, hidden, device=dev, dtype=torch.float16) * 0.02,
          torch.randn(hidden, 4 * hidden, device=dev, dtype=torch.float16) * 0.02,
          torch.randn(4 * hidden, hidden, device=dev, dtype=torch.float16) * 0.02)
         for _ in range(layers)]
    x = torch.randn(1, hidden, device=dev, dtype=torch.float16)

    def step(x):
        torch.cuda.nvtx.range_push("decode token")
        for qkv, out, up, down in w:
            h = x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).half()
            q, k, v = (h @ qkv).split(hidden, dim=-1)
            x = x + (torch.softmax(q * k, dim=-1) * v) @ out
            h = x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).half()
            x = x + torch.nn.functional.silu(h @ up) @ down
        torch.cuda.nvtx.range_pop()
        return x

    for _ in range(8):  # warm-up: allocator, cuBLAS handles
        x = step(x)
    torch.cuda.synchronize()
    profiler = None
    if os.environ.get("PEER_TORCH_PROFILER") == "1":
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        profiler = torch.profiler.profile(activities=acts)
        profiler.__enter__()
    t0 = time.perf_counter()
    for _ in range(tokens):
        x = step(x)
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3
    if profiler is not None:
        profiler.__exit__(None, None, None)
        profiler.export_chrome_trace(os.environ.get("PEER_TORCH_TRACE", "/dev/null"))
    print(f"decode: {tokens} tokens x 1 seq in {ms:.1f} ms ({tokens / ms * 1e3:.1f} tokens/s, "
          f"{ms / tokens:.2f} ms/step)")


if __name__ == "__main__":
    main()
