"""What the mpi tests share: mpirun kept on this machine, and skipping where
Open MPI or bricklayer's MPI plugin is missing."""
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import run, skip  # noqa: E402


def mpirun_or_skip():
    path = shutil.which("mpirun")
    if not path:
        skip("mpirun not found (scripts/setup installs openmpi-bin)")
    return path


def tp_plugin_or_skip(bricklayer):
    """bricklayer's MPI plugin is built only where Open MPI's headers are."""
    plugin = os.path.join(os.path.dirname(bricklayer), "libbricklayer_mpi.so")
    if not os.path.exists(plugin):
        skip("%s not built (no libopenmpi-dev at configure time)" % plugin)


def mpirun(np, argv, timeout=240):
    """`mpirun -np NP ARGV`, local only: shared memory between ranks, as root
    if we are, more ranks than cores allowed; a job still running after
    `timeout` seconds fails the test."""
    cmd = [mpirun_or_skip(), "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
           "--mca", "btl", "self,vader", "-np", str(np)] + list(argv)
    env = dict(os.environ)
    # Containers often forbid the cross-memory attach vader uses by default.
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    return run(cmd, env=env, timeout=timeout)
