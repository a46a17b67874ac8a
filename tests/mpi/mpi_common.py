"""What the mpi tests share: mpirun kept on this machine, running commands,
reading traces, and skipping (exit 77) where Open MPI is missing."""
import json
import os
import shutil
import subprocess
import sys

SKIP = 77


def mpirun_or_skip():
    path = shutil.which("mpirun")
    if not path:
        print("SKIP: mpirun not found (scripts/setup installs openmpi-bin)")
        sys.exit(SKIP)
    return path


def tp_plugin_or_skip(bricklayer):
    """bricklayer's MPI plugin is built only where Open MPI's headers are."""
    plugin = os.path.join(os.path.dirname(bricklayer), "libbricklayer_mpi.so")
    if not os.path.exists(plugin):
        print("SKIP: %s not built (no libopenmpi-dev at configure time)" % plugin)
        sys.exit(SKIP)


def mpirun(np, argv, env=None, timeout=240, check=True):
    """`mpirun -np NP ARGV`, local only: shared memory between ranks, as root
    if we are, more ranks than cores allowed."""
    cmd = [mpirun_or_skip(), "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
           "--mca", "btl", "self,vader", "-np", str(np)] + list(argv)
    full_env = dict(os.environ)
    # Containers often forbid the cross-memory attach vader uses by default.
    full_env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    full_env.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout)
    if check and p.returncode != 0:
        fail("%s exited %d\nstdout:\n%s\nstderr:\n%s" % (" ".join(cmd), p.returncode, p.stdout,
                                                         p.stderr))
    return p


def run(argv, timeout=240, check=True, env=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=full_env)
    if check and p.returncode != 0:
        fail("%s exited %d\nstdout:\n%s\nstderr:\n%s" % (" ".join(argv), p.returncode, p.stdout,
                                                         p.stderr))
    return p


def load(path):
    with open(path) as f:
        return json.load(f)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)
