"""An MPI job where only some ranks have the agent, as a wrapper script that
preloads rank 0 alone, or an MPMD line, makes it: the job finishes with the
output it has without the agent, and the preloaded rank's trace says which
of its peers had none. The agent must do no collective work of its own
that a rank without it would never join.

usage: mpi_partial.py BRICKPROF MPI_APP WORKDIR"""
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import check, load_json, require, summary  # noqa: E402
from mpi_common import mpirun  # noqa: E402

BRICKPROF, APP, WORK = sys.argv[1:4]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


def profiled(name):
    return [BRICKPROF, "run", "--log", "off", "--formats", "json", "--output",
            os.path.join(WORK, name), "--", APP]


def only_rank(rank, name):
    """A wrapper script that runs the program under brickprof on one rank."""
    return ["sh", "-c", 'if [ "$OMPI_COMM_WORLD_RANK" = %d ]; then exec "$@"; fi; '
            'exec "$0"' % rank, APP] + profiled(name)


def same_output(name, got, plain):
    check(got.returncode == plain.returncode,
          "%s: exit %d, plain %d" % (name, got.returncode, plain.returncode))
    check(sorted(got.stdout.splitlines()) == sorted(plain.stdout.splitlines()),
          "%s: stdout differs:\n%s\nplain:\n%s" % (name, got.stdout, plain.stdout))
    check(sorted(got.stderr.splitlines()) == sorted(plain.stderr.splitlines()),
          "%s: stderr differs:\n%s\nplain:\n%s" % (name, got.stderr, plain.stderr))


def warnings_of(name, rank):
    path = os.path.join(WORK, "%s-r%d.json" % (name, rank))
    require(os.path.exists(path), "%s: no trace of rank %d (%s)" % (name, rank, os.listdir(WORK)))
    trace = load_json(path)
    check(trace["process"]["rank"] == rank, "%s: rank %s" % (name, trace["process"]["rank"]))
    check(not trace["process"].get("clock_sync", {}).get("samples"),
          "%s: a clock sample with no peer to measure against" % name)
    return " ".join(trace["diagnostics"]["warnings"])


plain = mpirun(2, [APP])
# A job that still runs after a minute hangs (it takes seconds).
cases = {
    "rank0": mpirun(2, only_rank(0, "rank0"), timeout=60),
    "rank1": mpirun(2, only_rank(1, "rank1"), timeout=60),
    "mpmd": mpirun(1, profiled("mpmd") + [":", "-np", "1", APP], timeout=60),
}
for name, got in cases.items():
    same_output(name, got, plain)

for name in ("rank0", "mpmd"):
    said = warnings_of(name, 0)
    check("1 of 2 ranks have the brickprof agent" in said and "without it" in said and
          ": 1." in said, "%s: rank 0's trace does not say rank 1 had no agent: %s" % (name, said))
said = warnings_of("rank1", 1)
check("rank 0 has no brickprof agent" in said,
      "rank1: rank 1's trace does not say rank 0 had no agent: %s" % said)
check(sorted(os.listdir(WORK)) == ["mpmd-r0.json", "rank0-r0.json", "rank1-r1.json"],
      "traces: %s" % sorted(os.listdir(WORK)))
sys.exit(summary())
