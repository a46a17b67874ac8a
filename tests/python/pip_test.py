#!/usr/bin/env python3
"""pip install '.[jobs]' into a fresh virtual environment gives the brickprof module,
the CLI on PATH and the agent inside the package:

- a script using brickprof.layer/brick/scope (context managers and a
  decorator) runs under the venv's `brickprof run`, and its bricks are in
  the trace; without the agent the same script runs unchanged;
- brickprof.load of that trace and of the GPU fixture (also as .json.gz)
  gives DataFrames whose per-brick totals equal `brickprof report --json`,
  both the bricks table and the same totals summed from the nodes table;
- load times for 10^5 and 10^6 nodes are printed;
- with the jobs extras (pyarrow, DuckDB, Dask), a job's Parquet dataset
  gives the figures of `report` on the job's merged trace (jobs_checks.py:
  a 4-rank MPI_JOB under mpirun, generated jobs, bad shards).

usage: pip_test.py SOURCE_DIR DATA_DIR WORK_DIR [MPI_JOB]
Skips (77) when PyPI cannot be reached.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import run, skip  # noqa: E402


def main():
    source, data, work = sys.argv[1:4]
    mpi_job = sys.argv[4:5]
    os.makedirs(work, exist_ok=True)
    venv = os.path.join(work, "venv")
    shutil.rmtree(venv, ignore_errors=True)
    r = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True)
    if r.returncode != 0:
        skip("python3 -m venv failed: " + r.stderr.strip()[-200:])
    python = os.path.join(venv, "bin", "python")
    probe = tempfile.mkdtemp(prefix="brickprof-pypi-probe-")
    try:
        r = subprocess.run([python, "-m", "pip", "download", "--quiet", "--no-deps", "--timeout",
                            "30", "--dest", probe, "meson-python"], capture_output=True,
                           text=True)
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    if r.returncode != 0:
        skip("PyPI unreachable (pip download meson-python failed): "
             + (r.stderr.strip().splitlines() or ["?"])[-1])
    # The build folder is kept between runs (only to save time; the venv is
    # fresh): the command is what a user types, pip install 'SOURCE[jobs]'.
    run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         source + "[jobs]", "-Cbuild-dir=" + os.path.join(work, "build")], timeout=1500)
    env = dict(os.environ, PATH=os.path.join(venv, "bin") + os.pathsep + os.environ["PATH"])
    for var in ("BRICKPROF_AGENT", "LD_PRELOAD", "PYTHONPATH"):
        env.pop(var, None)
    r = subprocess.run([python, os.path.join(HERE, "pip_checks.py"), data, work], env=env,
                       timeout=900)
    jobs = subprocess.run([python, os.path.join(HERE, "jobs_checks.py"), source, data,
                           os.path.join(work, "jobs")] + mpi_job, env=env, timeout=900)
    return r.returncode or jobs.returncode


if __name__ == "__main__":
    sys.exit(main())
