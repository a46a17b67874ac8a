"""MPI calls at the edges of what the agent records (mpi_edges.c, 3 ranks):
the v-collectives and a rooted collective on an intercommunicator, whose
count arrays have the remote group's length (read with the local group's,
the bytes were wrong and the read ran past the array); the calls the agent
counts but does not record, named in the trace's warnings; and, where a
Fortran MPI compiler exists, a Fortran program whose calls the agent cannot
see, which its trace must say. Output unchanged throughout.

usage: mpi_edges.py BRICKPROF MPI_EDGES WORKDIR [MPI_FORTRAN]"""
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import check, load_json, require, summary  # noqa: E402
from mpi_common import mpirun  # noqa: E402

BRICKPROF, EDGES, WORK = sys.argv[1:4]
FORTRAN = sys.argv[4] if len(sys.argv) > 4 else ""
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# (op: (bytes, recv_bytes)) per world rank; ints are 4 bytes.
EXPECTED = {
    0: {"allgatherv": (4, 20), "alltoallv": (8, 16), "gatherv": (0, 20)},
    1: {"allgatherv": (8, 4), "alltoallv": (8, 4), "gatherv": (8, 0)},
    2: {"allgatherv": (12, 4), "alltoallv": (8, 4), "gatherv": (12, 0)},
}
COUNTED = ["MPI_Test", "MPI_Testall", "MPI_Waitsome", "MPI_Start", "MPI_Startall"]


def traced(ranks, program, name):
    return mpirun(ranks, [BRICKPROF, "run", "--log", "off", "--formats", "json", "--output",
                          os.path.join(WORK, name), "--", program])


def same_output(got, plain, what):
    check(got.returncode == plain.returncode and
          sorted(got.stdout.splitlines()) == sorted(plain.stdout.splitlines()) and
          sorted(got.stderr.splitlines()) == sorted(plain.stderr.splitlines()),
          "%s: output differs:\n%s%s\nplain:\n%s%s" % (what, got.stdout, got.stderr,
                                                       plain.stdout, plain.stderr))


same_output(traced(3, EDGES, "edges"), mpirun(3, [EDGES]), "mpi_edges")
for rank, want in EXPECTED.items():
    path = os.path.join(WORK, "edges-r%d.json" % rank)
    require(os.path.exists(path), "no trace of rank %d" % rank)
    trace = load_json(path)
    got = {n["mpi"]["op"]: (n["mpi"]["bytes"], n["mpi"].get("recv_bytes", 0))
           for n in trace["nodes"] if "mpi" in n and n["mpi"]["op"] in want}
    check(got == want, "rank %d on the intercommunicator: %s, expected %s" % (rank, got, want))
    said = " ".join(trace["diagnostics"]["warnings"])
    for function in COUNTED:
        check(function + " " in said, "rank %d: the trace does not say %s was not recorded: %s"
              % (rank, function, said))

if FORTRAN:
    same_output(traced(2, FORTRAN, "fortran"), mpirun(2, [FORTRAN]), "mpi_fortran")
    found = sorted(p for p in os.listdir(WORK) if p.startswith("fortran") and p.endswith(".json"))
    check(len(found) == 2, "Fortran traces: %s" % found)
    for name in found:
        said = " ".join(load_json(os.path.join(WORK, name))["diagnostics"]["warnings"])
        check("Fortran bindings" in said and "not recorded" in said,
              "%s: the trace does not say the Fortran calls were not recorded: %s" % (name, said))
sys.exit(summary())
