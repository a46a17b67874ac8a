"""The fake CUDA driver (tests/fakes/cuda_driver, found on LD_LIBRARY_PATH)
through ctypes, for the Python host cases that launch GPU work: Gpu(True)
calls it through ctypes.PyDLL (the GIL held during each call, as a CUDA
extension that keeps it), Gpu(False) through ctypes.CDLL (the GIL released,
as PyTorch's op bindings release it)."""
import ctypes
import sys

PTX = (b".version 8.0\n.target sm_90\n.address_size 64\n\n"
       b".visible .entry host_case_kernel()\n{\n\tret;\n}\n\0")


class Gpu:
    def __init__(self, hold_gil, ctx=None, function=None):
        loader = ctypes.PyDLL if hold_gil else ctypes.CDLL
        self.cuda = loader("libcuda.so.1")
        if ctx is not None:  # another's context and kernel (a thread, an interpreter)
            self.ctx, self.f = ctypes.c_void_p(ctx), ctypes.c_void_p(function)
            return
        self.ctx, self.f, module = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        device = ctypes.c_int()
        self.check(self.cuda.cuInit(0), "cuInit")
        self.check(self.cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
        self.check(self.cuda.cuCtxCreate_v4(ctypes.byref(self.ctx), None, 0, device), "cuCtxCreate")
        self.check(self.cuda.cuModuleLoadData(ctypes.byref(module), PTX), "cuModuleLoadData")
        self.check(self.cuda.cuModuleGetFunction(ctypes.byref(self.f), module,
                                                 b"host_case_kernel"), "cuModuleGetFunction")

    @staticmethod
    def check(result, what):
        if result != 0:
            print(f"{what} failed: {result}", file=sys.stderr)
            sys.exit(1)

    def bind(self):
        """Makes the context current on the calling thread."""
        self.check(self.cuda.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")

    def launch(self):
        self.check(self.cuda.cuLaunchKernel(self.f, 1, 1, 1, 32, 1, 1, 0, None, None, None),
                   "cuLaunchKernel")

    def finish(self):
        self.check(self.cuda.cuCtxSynchronize(), "cuCtxSynchronize")
