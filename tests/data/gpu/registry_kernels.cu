// Kernels for the PTX registry tests: a template in a namespace (mangled,
// demangles to "demo::scale<float>(...)"), an extern "C" kernel (not
// mangled) and a plain one. The build turns this into PTX, a cubin and
// fatbins with every compression mode nvcc offers.
namespace demo {
template <typename T>
__global__ void scale(T* x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
template __global__ void scale<float>(float*, float, int);
}  // namespace demo

extern "C" __global__ void add_one(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__device__ __noinline__ float twice(float v) { return 2.0f * v; }

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = twice(a * x[i]) + y[i];
}
