"""The second file python_shapes.py launches from (see there)."""


def launch_from_other(cuda, k):
    result = cuda.cuLaunchKernel(k.f, 12, 1, 1, 128, 1, 1, 0, None, k.params, None)  # launch-site: 12 other launch_from_other
    if result != 0:
        raise RuntimeError(f"launch from the other file failed: {result}")
