"""A Python program that allocates device memory through ctypes.CDLL (the
GIL released in each call, as PyTorch's allocator calls cudaMalloc) from
two functions, frees it from a third, and pins host memory, for the memory
test (python_memory_test.cpp). Lines that allocate or free end in a
"memory-site: NAME" comment the test looks for. Prints "ok" and exits 0, or
names the failing call and exits 1."""
import ctypes
import sys

cuda = ctypes.CDLL("libcuda.so.1")
cuda.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
cuda.cuMemFree_v2.argtypes = [ctypes.c_uint64]
cuda.cuMemAllocHost_v2.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
cuda.cuMemFreeHost.argtypes = [ctypes.c_void_p]

LAYERS = 3


def check(result, what):
    if result != 0:
        print(f"{what} failed: {result}", file=sys.stderr)
        sys.exit(1)


def load_weights(nbytes):
    ptr = ctypes.c_uint64()
    check(cuda.cuMemAlloc_v2(ctypes.byref(ptr), nbytes), "weights")  # memory-site: weights
    return ptr.value


def make_cache(nbytes):
    ptr = ctypes.c_uint64()
    check(cuda.cuMemAlloc_v2(ctypes.byref(ptr), nbytes), "cache")  # memory-site: cache
    return ptr.value


def release(pointers):
    for p in pointers:
        check(cuda.cuMemFree_v2(p), "free")  # memory-site: free


def main():
    check(cuda.cuInit(0), "cuInit")
    device = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuCtxCreate_v4(ctypes.byref(ctx), None, 0, device), "cuCtxCreate")
    staging = ctypes.c_void_p()
    check(cuda.cuMemAllocHost_v2(ctypes.byref(staging), 1 << 20), "pinned")  # memory-site: pinned
    pointers = [load_weights((i + 1) << 20) for i in range(LAYERS)]
    pointers.append(make_cache(4 << 20))
    release(pointers)
    check(cuda.cuMemFreeHost(staging), "free host")  # memory-site: free_host
    print("ok")


main()
