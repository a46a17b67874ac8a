/* A CUDA extension module as PyTorch's op bindings are: the launch runs with
   the GIL released (Py_BEGIN_ALLOW_THREADS, what pybind11's
   gil_scoped_release and ATen's generated wrappers do), so the thread that
   launches holds no GIL while the driver and CUPTI run. Built by the
   Python-frames tests against each interpreter's headers; the driver
   (libcuda.so.1, the fake one in the tests) is found with dlopen, as
   libcudart finds it.

   launch(function, grid_x, device_pointer) -> CUresult */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>

typedef int (*LaunchKernel)(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                            unsigned by, unsigned bz, unsigned shared, void* stream, void** params,
                            void** extra);
static LaunchKernel launch_kernel;

static PyObject* launch(PyObject* self, PyObject* args) {
  unsigned long long function = 0, pointer = 0;
  unsigned int grid = 0;
  (void)self;
  if (!PyArg_ParseTuple(args, "KIK", &function, &grid, &pointer)) return NULL;
  uint64_t device_pointer = pointer;
  void* params[1] = {&device_pointer};
  int result;
  /* The macros open and close a block, as ATen's and pybind11's releases do. */
  // clang-format off
  Py_BEGIN_ALLOW_THREADS
  result = launch_kernel((void*)(uintptr_t)function, grid, 1, 1, 128, 1, 1, 0, NULL, params, NULL);
  Py_END_ALLOW_THREADS
  return PyLong_FromLong(result);
}
// clang-format on

static PyMethodDef methods[] = {
    {"launch", launch, METH_VARARGS, "cuLaunchKernel with the GIL released"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "brickprof_launch_ext", NULL, -1,
                                    methods};

PyMODINIT_FUNC PyInit_brickprof_launch_ext(void) {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (driver != NULL) launch_kernel = (LaunchKernel)dlsym(driver, "cuLaunchKernel");
  if (launch_kernel == NULL) {
    PyErr_SetString(PyExc_ImportError, "no cuLaunchKernel in libcuda.so.1");
    return NULL;
  }
  return PyModule_Create(&module);
}
