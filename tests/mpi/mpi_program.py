"""An unmodified MPI program under `mpirun -np 2 brickprof run`: same exit
code and output as without; every call in each rank's trace with the right
bytes; the collectives matched across ranks once merged; one rank's clock
shifted on purpose and merge putting it back; merges of missing, duplicate
and mismatched ranks refused with one line; and an MPI library loaded
privately (dlopen RTLD_LOCAL, as Python loads mpi4py) still recorded.

usage: mpi_program.py BRICKPROF MPI_APP WORKDIR PRIVATE_LOADER PRIVATE_USER"""
import glob
import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import load_json, require, run  # noqa: E402
from mpi_common import mpirun  # noqa: E402

BRICKPROF, APP, WORK, LOADER, USER = sys.argv[1:6]
SHIFT_NS = 7_300_000_000  # rank 1's clock, 7.3 s ahead

# Per rank, in call order: (op, bytes, recv_bytes, peer), the root or peer
# as each rank sees it. mpi_app.c makes exactly these calls.
def expected(rank):
    other = 1 - rank
    return [
        ("init", 0, 0, -1),
        ("clock_sync", 0, 0, -1),
        ("barrier", 0, 0, -1),
        ("bcast", 148, 0, 1),
        ("allreduce", 8000, 0, -1),
        ("reduce", 40, 0, 0),
        ("allgather", 20, 40, -1),
        ("gather", 12, 24 if rank == 1 else 0, 1),
        ("scatter", 64 if rank == 0 else 0, 32, 0),
        ("alltoall", 16, 16, -1),
        ("scan", 8, 0, -1),
        ("comm_split", 0, 0, -1),
        ("allreduce", 64, 0, -1),
        ("send", 100, 0, 1) if rank == 0 else ("recv", 0, 100, 0),
        ("isend", 4, 0, other),
        ("irecv", 0, 4, other),
        ("waitall", 0, 0, -1),
        ("iallreduce", 8, 0, -1),
        ("wait", 0, 0, -1),
        ("clock_sync", 0, 0, -1),
        ("finalize", 0, 0, -1),
    ]


def rank_files(folder):
    """The ranks' traces (the job's summary, app-job.json, is mpi_job_summary's)."""
    files = sorted(f for f in glob.glob(os.path.join(folder, "*.json"))
                   if not f.endswith("-job.json"))
    require(len(files) == 2, "expected two rank files in %s, got %s" % (folder, files))
    by_rank = {load_json(f)["process"]["rank"]: f for f in files}
    require(sorted(by_rank) == [0, 1], "ranks recorded: %s" % sorted(by_rank))
    return by_rank


def profile(folder, wrapper=None):
    os.makedirs(folder)
    argv = [BRICKPROF, "run", "--log", "off", "--formats", "json", "--output",
            os.path.join(folder, "app"), "--", APP]
    return mpirun(2, (wrapper or []) + argv)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# 1. Unchanged behaviour: exit code, stdout, stderr (lines of the two ranks
#    may interleave differently, so compared sorted).
plain = mpirun(2, [APP])
traced = profile(os.path.join(WORK, "traced"))
require(traced.returncode == plain.returncode, "exit %d, plain %d" % (traced.returncode,
                                                                       plain.returncode))
require(sorted(traced.stdout.splitlines()) == sorted(plain.stdout.splitlines()),
        "stdout differs:\n%s\nplain:\n%s" % (traced.stdout, plain.stdout))
require(sorted(traced.stderr.splitlines()) == sorted(plain.stderr.splitlines()),
        "stderr differs:\n%s\nplain:\n%s" % (traced.stderr, plain.stderr))

# 2. Every call, in order, with its bytes, peer and communicator sequence.
files = rank_files(os.path.join(WORK, "traced"))
for rank, path in files.items():
    t = load_json(path)
    p = t["process"]
    require(p["world_size"] == 2 and p["launcher"] == "open-mpi", "process: %s" % p)
    require(os.path.basename(path) == "app-r%d.json" % rank, "name %s" % path)
    calls = [(n["mpi"]["op"], n["mpi"]["bytes"], n["mpi"].get("recv_bytes", 0),
              n["mpi"].get("peer", -1)) for n in t["nodes"] if "mpi" in n]
    require(calls == expected(rank), "rank %d calls:\n%s\nexpected:\n%s" %
            (rank, "\n".join(map(str, calls)), "\n".join(map(str, expected(rank)))))
    for n in t["nodes"]:
        if "mpi" in n:
            require(n["category"] == "Communication" and n["kind"] == "scope", "node %s" % n)
    comms = {c["id"]: c for c in t["communicators"]}
    require(comms[0]["name"] == "MPI_COMM_WORLD" and comms[0]["rank"] == rank,
            "comms %s" % comms)
    world_seq = [n["mpi"]["seq"] for n in t["nodes"]
                 if "mpi" in n and n["mpi"].get("seq") and n["mpi"]["comm"] == 0]
    require(world_seq == list(range(1, len(world_seq) + 1)), "world sequence %s" % world_seq)

merged = os.path.join(WORK, "merged.json")
run([BRICKPROF, "merge", files[0], files[1], "-o", merged])
report = json.loads(run([BRICKPROF, "report", merged, "--collectives", "--json"]).stdout)
coll = report["collectives"]
ops = sorted(i["op"] for i in coll["instances"])
want = sorted(op for op, *_ in expected(0)
              if op not in ("init", "finalize", "clock_sync", "send", "recv", "isend", "irecv",
                            "waitall", "wait"))
require(ops == want, "collective instances %s, expected %s" % (ops, want))
for inst in coll["instances"]:
    require(inst["complete"] and len(inst["calls"]) == 2 and
            sorted(c["rank"] for c in inst["calls"]) == [0, 1], "not matched: %s" % inst)
require(coll["incomplete"] == 0, "incomplete instances")

# 3. One clock shifted on purpose: the agent measures it, merge undoes it.
shifted = os.path.join(WORK, "shifted")
wrapper = ["sh", "-c", 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then '
           "export BRICKPROF_TEST_CLOCK_SHIFT_NS=%d; fi; exec \"$@\"" % SHIFT_NS, "sh"]
profile(shifted, wrapper)
files = rank_files(shifted)
sync = load_json(files[1])["process"]["clock_sync"]
require(sync["reference_rank"] == 0 and len(sync["samples"]) == 2, "clock sync %s" % sync)
# Both ranks read one machine's clock, so the shift is the true offset, and
# a ping-pong sample is off by at most half its round trip (rank 0's reply
# was stamped between the ping and the pong): what the trace states, not a
# figure of this machine's load.
ROUNDING_NS = 1000
for s in sync["samples"]:
    require(abs(s["offset_ns"] - SHIFT_NS) <= s["rtt_ns"] / 2 + ROUNDING_NS,
            "measured offset %d, shifted by %d: off by more than the sample's stated error "
            "(%d ns)" % (s["offset_ns"], SHIFT_NS, s["rtt_ns"] / 2))
error_ns = max(s["rtt_ns"] for s in sync["samples"]) / 2 + ROUNDING_NS


def barrier_overlap(nodes):
    """The worst gap by which a rank left an all-to-all collective on
    MPI_COMM_WORLD before another arrived (impossible on one timeline)."""
    arrivals = {}
    for n, world in nodes:
        m = n.get("mpi")
        if m and m["op"] in ("barrier", "allreduce", "allgather", "alltoall") and \
                m["comm"] in world:
            arrivals.setdefault(m["seq"], []).append((n["start_ns"], n["end_ns"]))
    return max(max(s for s, _ in calls) - min(e for _, e in calls)
               for calls in arrivals.values())


def world_ids(trace):
    return {c["id"] for c in trace["communicators"] if c["name"] == "MPI_COMM_WORLD"}


raw = [(n, {0}) for f in (files[0], files[1]) for n in load_json(f)["nodes"]]
raw_gap = barrier_overlap(raw)
require(raw_gap > SHIFT_NS / 2, "the shift did not show in the raw files (gap %d ns)" % raw_gap)
merged = os.path.join(WORK, "shifted-merged.json")
run([BRICKPROF, "merge", files[0], files[1], "-o", merged])
m = load_json(merged)
gap = barrier_overlap([(n, world_ids(m)) for n in m["nodes"]])
# Aligned within the samples' error, no collective can look left before
# it was entered by more than that error.
require(gap < error_ns, "after merge a rank still leaves a collective %d ns before another "
        "arrives (alignment error at most %d ns)" % (gap, error_ns))
require(abs(m["sources"][1]["alignment"]["offset_ns"] - SHIFT_NS) <= error_ns,
        "alignment %s, error at most %d ns" % (m["sources"][1].get("alignment"), error_ns))

# 4. Merges that are not one job's ranks: one line, exit 2.
def refused(args, words):
    p = run([BRICKPROF, "merge"] + args + ["-o", os.path.join(WORK, "x.json")], ok_codes=None)
    lines = p.stderr.strip().splitlines()
    require(p.returncode == 2 and len(lines) == 1 and words in lines[0] and not p.stdout,
            "merge %s: exit %d, stderr %r" % (args, p.returncode, p.stderr))

refused([files[0]], "rank 1 of 2 is missing")
refused([files[0], files[0]], "rank 0 again")
bigger = load_json(files[1])
bigger["process"]["world_size"] = 4
other = os.path.join(WORK, "world4.json")
with open(other, "w") as f:
    json.dump(bigger, f)
refused([files[0], other], "not the same job")
# 5. The MPI library out of the global scope: the wrappers find PMPI_* in
#    the loaded objects.
private = os.path.join(WORK, "private")
os.makedirs(private)
p = mpirun(2, [BRICKPROF, "run", "--log", "off", "--formats", "json", "--output",
               os.path.join(private, "user"), "--", LOADER, USER])
require(sorted(p.stdout.splitlines()) == ["private rank 0: sum 3", "private rank 1: sum 3"],
        "private user printed:\n" + p.stdout + p.stderr)
for rank, path in rank_files(private).items():
    ops = [(n["mpi"]["op"], n["mpi"]["bytes"]) for n in load_json(path)["nodes"] if "mpi" in n]
    require(("allreduce", 8) in ops, "rank %d of the private user: %s" % (rank, ops))

# 6. Past the call log's cap (an eighth of BRICKPROF_BUFFER_MB, at least
#    4096 calls): the calls beyond are counted, not lost silently.
capped = os.path.join(WORK, "capped")
os.makedirs(capped)
mpirun(1, [BRICKPROF, "run", "--log", "off", "--formats", "json", "--buffer-mb", "1", "--output",
           os.path.join(capped, "app"), "--", APP, "barriers", "5000"])
t = load_json(os.path.join(capped, "app.json"))
logged = sum(1 for n in t["nodes"] if "mpi" in n)
# init, 5000 barriers, finalize (one rank: no clock to align): 5002 calls
require(logged == 4096, "%d calls logged, expected the cap of 4096" % logged)
require("906 MPI calls were not recorded" in " ".join(t["diagnostics"]["warnings"]),
        "warnings: %s" % t["diagnostics"]["warnings"])

print("ok: mpi_app traced unchanged, %d collectives matched, clock shift undone "
      "(%d ns -> %d ns), bad merges refused, a private MPI library recorded" %
      (len(want), raw_gap, gap))
