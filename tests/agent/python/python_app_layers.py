"""The second file of python_app.py's launches (see there)."""


def mlp(cuda, f, buffer, params):
    result = cuda.cuLaunchKernel(f, 4, 1, 1, 128, 1, 1, 0, None, params(buffer), None)  # launch-site: mlp
    if result != 0:
        raise RuntimeError(f"mlp launch failed: {result}")
