"""A Python program that launches kernels into the fake driver through
ctypes, for the Python-frame test (python_frames_test.cpp): three launching
functions in two files (norm and attention here, mlp in python_app_layers),
a copy, a memset, and a thread that launches with the GIL released (ctypes.CDLL).
With the argument "profile-mlp", cuProfilerStart/Stop surround each mlp call.
Lines that launch end in a "launch-site: NAME" comment the test looks for.
Prints "ok" and exits 0, or names the failing call and exits 1."""
import ctypes
import sys
import threading

import python_app_layers

STEPS = 3
PTX = (b"//\n// python_app kernels\n//\n.version 8.0\n.target sm_90\n.address_size 64\n\n"
       b".visible .entry norm_kernel(\n\t.param .u64 p\n)\n{\n\tret;\n}\n\n"
       b".visible .entry attention_kernel(\n\t.param .u64 p\n)\n{\n\tret;\n}\n\n"
       b".visible .entry mlp_kernel(\n\t.param .u64 p\n)\n{\n\tret;\n}\n\0")

# PyDLL holds the GIL during each call, as a CUDA extension module does.
cuda = ctypes.PyDLL("libcuda.so.1")
# CDLL releases it: the thread below launches with no GIL held.
cuda_nogil = ctypes.CDLL("libcuda.so.1")


def check(result, what):
    if result != 0:
        print(f"{what} failed: {result}", file=sys.stderr)
        sys.exit(1)


def params(buffer):
    return (ctypes.c_void_p * 1)(ctypes.addressof(buffer))


def norm(f, buffer):
    check(cuda.cuLaunchKernel(f, 2, 1, 1, 128, 1, 1, 0, None, params(buffer), None), "norm")  # launch-site: norm


def attention(f, buffer):
    for _ in range(2):
        check(cuda.cuLaunchKernel(f, 3, 1, 1, 128, 1, 1, 0, None, params(buffer), None), "attention")  # launch-site: attention


def launch_without_gil(f, buffer, ctx):
    check(cuda_nogil.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    check(cuda_nogil.cuLaunchKernel(f, 5, 1, 1, 128, 1, 1, 0, None, params(buffer), None), "nogil")  # launch-site: nogil


def main():
    profile_mlp = sys.argv[1:] == ["profile-mlp"]
    check(cuda.cuInit(0), "cuInit")
    device = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuCtxCreate_v4(ctypes.byref(ctx), None, 0, device), "cuCtxCreate")
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), PTX), "cuModuleLoadData")
    kernels = {}
    for name in ("norm_kernel", "attention_kernel", "mlp_kernel"):
        f = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(f), module, name.encode()), name)
        kernels[name] = f
    device_buffer = ctypes.c_uint64()
    size = ctypes.c_size_t(1 << 16)
    check(cuda.cuMemAlloc_v2(ctypes.byref(device_buffer), size), "cuMemAlloc")
    host = ctypes.create_string_buffer(1 << 16)
    check(cuda.cuMemcpyHtoD_v2(device_buffer, host, size), "cuMemcpyHtoD")  # launch-site: upload
    check(cuda.cuMemsetD8_v2(device_buffer, ctypes.c_ubyte(0), size), "cuMemsetD8")  # launch-site: clear
    for _ in range(STEPS):
        norm(kernels["norm_kernel"], device_buffer)
        attention(kernels["attention_kernel"], device_buffer)
        if profile_mlp:
            check(cuda.cuProfilerStart(), "cuProfilerStart")
        python_app_layers.mlp(cuda, kernels["mlp_kernel"], device_buffer, params)
        if profile_mlp:
            check(cuda.cuProfilerStop(), "cuProfilerStop")
    worker = threading.Thread(target=launch_without_gil,
                              args=(kernels["norm_kernel"], device_buffer, ctx))
    worker.start()
    worker.join()
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    check(cuda.cuCtxDestroy_v2(ctx), "cuCtxDestroy")
    print("ok")


if __name__ == "__main__":
    main()
