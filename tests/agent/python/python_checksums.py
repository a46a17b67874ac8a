"""A Python program that runs bricklayer's kernels through ctypes.CDLL on
the fake driver executing them (FAKE_CUDA_KERNELS), for the checksum mode
test (checksums_test.cpp): y = a + b (bl_add), then z = silu(y) (bl_silu)
into an allocation it enters 16 floats past its start, then the same from
two threads at once, each on a stream of its own. It copies every buffer
back itself and writes what each held after the kernels, as hex, to
OUT_FILE ("name address hex" a line), so the test computes the digests
it expects from the data alone. Usage: python_checksums.py PTX OUT_FILE.
Prints "ok" and exits 0, or names the failing call and exits 1."""
import ctypes
import struct
import sys
import threading

cuda = ctypes.CDLL("libcuda.so.1")
u64 = ctypes.c_uint64
cuda.cuMemAlloc_v2.argtypes = [ctypes.POINTER(u64), ctypes.c_size_t]
cuda.cuMemFree_v2.argtypes = [u64]
cuda.cuMemcpyHtoD_v2.argtypes = [u64, ctypes.c_void_p, ctypes.c_size_t]
cuda.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, u64, ctypes.c_size_t]
cuda.cuModuleLoadData.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p]
cuda.cuModuleGetFunction.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
                                     ctypes.c_char_p]
cuda.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
    ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
cuda.cuStreamCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
cuda.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
cuda.cuCtxSetCurrent.argtypes = [ctypes.c_void_p]

N = 1000
OFFSET = 16  # floats: z is written from here to its allocation's end
THREAD_LAUNCHES = 20
lines = []
lines_lock = threading.Lock()


def check(result, what):
    if result != 0:
        print(f"{what} failed: {result}", file=sys.stderr)
        sys.exit(1)


def alloc(nbytes):
    ptr = u64()
    check(cuda.cuMemAlloc_v2(ctypes.byref(ptr), nbytes), "cuMemAlloc")
    return ptr.value


def upload(values):
    data = struct.pack(f"<{len(values)}f", *values)
    ptr = alloc(len(data))
    check(cuda.cuMemcpyHtoD_v2(ptr, data, len(data)), "cuMemcpyHtoD")
    return ptr


def download(ptr, nbytes):
    out = ctypes.create_string_buffer(nbytes)
    check(cuda.cuMemcpyDtoH_v2(out, ptr, nbytes), "cuMemcpyDtoH")
    return out.raw


def launch(function, stream, *args):
    """args: ('p', address) or ('i', int)."""
    held = [u64(v) if kind == "p" else ctypes.c_int(v) for kind, v in args]
    params = (ctypes.c_void_p * len(held))(*[ctypes.cast(ctypes.byref(h), ctypes.c_void_p)
                                              for h in held])
    blocks = (N + 255) // 256
    check(cuda.cuLaunchKernel(function, blocks, 1, 1, 256, 1, 1, 0, stream, params, None),
          "cuLaunchKernel")


def wrote(name, ptr, nbytes):
    with lines_lock:
        lines.append(f"{name} {ptr:#x} {download(ptr, nbytes).hex()}")


def in_thread(ctx, add, index, failures):
    try:
        check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        stream = ctypes.c_void_p()
        check(cuda.cuStreamCreate(ctypes.byref(stream), 1), "cuStreamCreate")  # non-blocking
        a = upload([float(index + i % 7) for i in range(N)])
        b = upload([0.25 * i for i in range(N)])
        y = alloc(N * 4)
        for _ in range(THREAD_LAUNCHES):
            launch(add, stream, ("p", a), ("p", b), ("p", y), ("i", N))
        check(cuda.cuStreamSynchronize(stream), "cuStreamSynchronize")
        wrote(f"thread{index}.y", y, N * 4)
    except SystemExit:
        failures.append(index)


def main():
    ptx_path, out_path = sys.argv[1], sys.argv[2]
    check(cuda.cuInit(0), "cuInit")
    device = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuCtxCreate_v4(ctypes.byref(ctx), None, 0, device), "cuCtxCreate")
    with open(ptx_path, "rb") as f:
        ptx = f.read() + b"\0"
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), ptx), "cuModuleLoadData")
    add, silu = ctypes.c_void_p(), ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(add), module, b"bl_add"), "bl_add")
    check(cuda.cuModuleGetFunction(ctypes.byref(silu), module, b"bl_silu"), "bl_silu")

    a = upload([0.5 * i - 100 for i in range(N)])
    b = upload([1.0 / (i + 1) for i in range(N)])
    y = alloc(N * 4)
    z = alloc((N + OFFSET) * 4)
    launch(add, None, ("p", a), ("p", b), ("p", y), ("i", N))
    launch(silu, None, ("p", y), ("p", z + OFFSET * 4), ("i", N))
    for name, ptr, nbytes in (("a", a, N * 4), ("b", b, N * 4), ("y", y, N * 4),
                              ("z", z + OFFSET * 4, N * 4)):
        wrote(name, ptr, nbytes)

    failures = []
    threads = [threading.Thread(target=in_thread, args=(ctx, add, i, failures)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        sys.exit(1)
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("ok")


main()
