"""The job summary reduced in place: bricklayer --tp 4 under `mpirun -np 4
brickprof run` (oversubscribed) leaves the four rank traces and, from rank
0, bl-job.json. `report` and `report --json` read it; its figures are the
ones the traces give: each rank's brick statistics as that rank's own
`report --summary`, the bricks over all ranks as the merged trace's, and
the collectives (per rank and per instance) as `report --collectives` of
the merge, each rank's memory peaks as `report --memory` of its trace. Counts match exactly; times within the clock fits' difference
(the summary converts cycle counts with the fit taken at MPI_Finalize,
the trace with the one taken at exit: parts per million of the run).
Then the same job with rank 3 run without the agent: same tokens and exit
code as the job without any agent, and a summary of the three others that
names rank 3.

Last, where the fake driver is built: a job whose ranks launch kernels
(mpi_gpu_job.c), its summary's kernels per rank those of the rank's trace,
counts and GPU times exactly (both are CUPTI's nanoseconds, no clock fit),
and its device memory peak report --memory's.

usage: mpi_job_summary.py BRICKPROF BRICKLAYER WORKDIR [MPI_GPU_JOB FAKE_CUDA_DIR]"""
import json
import os
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import check, require, run, summary  # noqa: E402
from mpi_common import mpirun, mpirun_or_skip, tp_plugin_or_skip  # noqa: E402

BRICKPROF, BRICKLAYER, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
RANKS = 4
MODEL = ["--layers", "2", "--hidden", "1024", "--heads", "8", "--kv-heads", "4", "--ffn", "1024",
         "--vocab", "512", "--context", "32", "--prompt", "4", "--tokens", "4", "--threads", "1",
         "--probe-seconds", "0", "--tp", str(RANKS)]


def near(a, b):
    """Equal but for the two clock fits (and rounding to the nanosecond)."""
    return abs(a - b) <= 2000 + 1e-5 * max(abs(a), abs(b))


def tokens(stdout):
    return re.findall(r"^generated \(seq 0\):(.*)$", stdout, re.M)


def report_json(*args):
    return json.loads(run([BRICKPROF, "report", "--json"] + list(args)).stdout)


def profiled(folder):
    return [BRICKPROF, "run", "--log", "off", "--formats", "json", "--output",
            os.path.join(folder, "bl"), "--", BRICKLAYER] + MODEL


def compare_stats(what, got, want):
    """TimeStat lists by name: count exact, times near."""
    got = {s["name"]: s for s in got}
    want = {s["name"]: s for s in want}
    check(sorted(got) == sorted(want), "%s: bricks %s, trace %s" % (what, sorted(got), sorted(want)))
    for name in set(got) & set(want):
        g, w = got[name], want[name]
        check(g["count"] == w["count"], "%s %s: count %d, trace %d" % (what, name, g["count"],
                                                                      w["count"]))
        for key in ("total_ns", "min_ns", "max_ns"):
            check(near(g[key], w[key]), "%s %s: %s %d, trace %d" % (what, name, key, g[key], w[key]))


tp_plugin_or_skip(BRICKLAYER)
mpirun_or_skip()
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# --- every rank with the agent -------------------------------------------
full = os.path.join(WORK, "full")
os.makedirs(full)
p = mpirun(RANKS, profiled(full))
traces = [os.path.join(full, "bl-r%d.json" % r) for r in range(RANKS)]
job_file = os.path.join(full, "bl-job.json")
for f in traces + [job_file]:
    require(os.path.exists(f), "no %s (files: %s)" % (f, sorted(os.listdir(full))))
check(sorted(os.listdir(full)) == sorted(os.path.basename(f) for f in traces + [job_file]),
      "files: %s" % sorted(os.listdir(full)))

raw = json.load(open(job_file))
require(raw["schema"] == "brickprof-job/1", "schema %s" % raw["schema"])
require([r["rank"] for r in raw["ranks"]] == list(range(RANKS)), "ranks %s" % raw["ranks"])

text = run([BRICKPROF, "report", job_file]).stdout
for words in ["Job summary", "4 of 4 ranks", "rank 3", "Bricks over all ranks", "Collectives:",
              "allreduce", "order:", "Memory (each account's peak", 'program pool "kv_cache"',
              "Reduction:"]:
    check(words in text, "%r missing from report of the job summary:\n%s" % (words, text))

job = report_json(job_file)
# Each rank's bricks are its own trace's (report --summary of that trace).
for r in range(RANKS):
    mine = raw["ranks"][r]
    check(mine["wire_bytes"] > 0 and mine["clock_aligned"], "rank %d: %s" % (r, mine))
    compare_stats("rank %d" % r, mine["bricks"], report_json(traces[r], "--summary")["summary"]["bricks"])
    # Its memory peaks: report --memory's on its own trace, account by account
    # (bricklayer reports its weights, activations and KV cache as pools).
    peaks = {m["account"]: m["peak_bytes"] for m in mine["memory_peaks"]}
    want = {a["label"]: a["peak_bytes"]
            for a in report_json(traces[r], "--memory")["memory"]["accounts"]}
    check(peaks and peaks == want, "rank %d: memory peaks %s, report --memory %s" % (r, peaks, want))

merged = os.path.join(full, "merged.json")
run([BRICKPROF, "merge"] + traces + ["-o", merged])
views = report_json(merged, "--summary", "--collectives")
# Over all ranks: the merged trace's brick statistics.
compare_stats("all ranks", job["bricks"], views["summary"]["bricks"])

coll, mine = views["collectives"], job["collectives"]
rank_of = {r["index"]: r["rank"] for r in coll["ranks"]}
check(mine["instances_count"] == coll["instances_count"],
      "instances: summary %d, merge %d" % (mine["instances_count"], coll["instances_count"]))
check(mine["incomplete"] == 0 and coll["incomplete"] == 0, "incomplete instances")
merged_ranks = {rank_of[p["rank"]]: p for p in coll["per_rank"]}
for row in job["ranks"]:
    m = merged_ranks[row["rank"]]
    check(row["collective_calls"] == m["calls"],
          "rank %d: %d collective calls, merge %d" % (row["rank"], row["collective_calls"], m["calls"]))
    check(near(row["call_ns"], m["call_ns"]), "rank %d: in calls %d, merge %d" %
          (row["rank"], row["call_ns"], m["call_ns"]))
    check(near(row["wait_ns"], m["wait_ns"]), "rank %d: waiting %d, merge %d" %
          (row["rank"], row["wait_ns"], m["wait_ns"]))
# Instance by instance (both in order of first arrival): op, seq, the skew,
# and the straggler where the last two arrivals are not a near tie.
ties = 0
for a, b in zip(mine["instances"], coll["instances"]):
    check((a["op"], a["seq"]) == (b["op"], b["seq"]),
          "instance %s #%d, merge %s #%d" % (a["op"], a["seq"], b["op"], b["seq"]))
    check(near(a["skew_ns"], b["skew_ns"]), "%s #%d: skew %d, merge %d" %
          (a["op"], a["seq"], a["skew_ns"], b["skew_ns"]))
    arrivals = sorted(c["arrival_ns"] for c in b["calls"])
    if len(arrivals) > 1 and arrivals[-1] - arrivals[-2] < 200:
        ties += 1
        continue
    check(job["ranks"][a["straggler"]]["rank"] == rank_of[b["straggler"]],
          "%s #%d: straggler rank %d, merge rank %d" % (a["op"], a["seq"],
                                                       job["ranks"][a["straggler"]]["rank"],
                                                       rank_of[b["straggler"]]))
reduction = raw["reduction"]
check(reduction["gathered_bytes"] == sum(r["wire_bytes"] for r in raw["ranks"]),
      "gathered %d bytes, the ranks sent %s" % (reduction["gathered_bytes"],
                                               [r["wire_bytes"] for r in raw["ranks"]]))
# A job summary is not a trace: the trace views say so, and merge names it.
bad = run([BRICKPROF, "report", job_file, "--tree"], ok_codes=(2,))
check("needs a trace" in bad.stderr, "report --tree of a job summary: %s" % bad.stderr)
bad = run([BRICKPROF, "merge", job_file, traces[0], "-o", os.path.join(WORK, "x.json")],
          ok_codes=(2,))
check("job's summary" in bad.stderr, "merge of a job summary: %s" % bad.stderr)

# A job summary cut short: one line naming the file and the problem, exit 2.
cut = os.path.join(WORK, "cut-job.json")
with open(job_file) as f, open(cut, "w") as out:
    out.write(f.read()[:3000])
bad = run([BRICKPROF, "report", cut], ok_codes=(2,))
check(bad.stderr.count("\n") == 1 and cut in bad.stderr and "JSON" in bad.stderr,
      "report of a truncated job summary: %r" % bad.stderr)

# --- rank 3 without the agent ----------------------------------------------
plain = mpirun(RANKS, [BRICKLAYER] + MODEL)
partial = os.path.join(WORK, "partial")
os.makedirs(partial)
# A wrapper as a user would write one: rank 3 runs bricklayer itself.
wrapper = ["sh", "-c", 'if [ "$OMPI_COMM_WORLD_RANK" = 3 ]; then shift %d; fi; exec "$@"'
           % (len(profiled(partial)) - len(MODEL) - 1), "sh"] + profiled(partial)
got = mpirun(RANKS, wrapper, timeout=180)
check(got.returncode == plain.returncode, "exit %d, plain %d" % (got.returncode, plain.returncode))
check(tokens(got.stdout) == tokens(plain.stdout) and tokens(plain.stdout),
      "tokens %s, plain %s" % (tokens(got.stdout), tokens(plain.stdout)))
check(got.stderr == plain.stderr, "stderr:\n%s\nplain:\n%s" % (got.stderr, plain.stderr))
files = sorted(os.listdir(partial))
check(files == ["bl-job.json", "bl-r0.json", "bl-r1.json", "bl-r2.json"], "files: %s" % files)
part = json.load(open(os.path.join(partial, "bl-job.json")))
check([r["rank"] for r in part["ranks"]] == [0, 1, 2], "ranks %s" % part["ranks"])
check(any("3 of 4 ranks have the brickprof agent" in n and ": 3." in n for n in part["notes"]),
      "the summary does not say rank 3 had no agent: %s" % part["notes"])
text = run([BRICKPROF, "report", os.path.join(partial, "bl-job.json")]).stdout
check("3 of 4 ranks" in text, "report of the partial job:\n%s" % text)

# --- a job launching kernels on the fake driver ----------------------------
kernels_checked = 0
if len(sys.argv) > 5:
    gpu_job, fake_dir = sys.argv[4], sys.argv[5]
    folder = os.path.join(WORK, "gpu")
    os.makedirs(folder)
    os.environ["LD_LIBRARY_PATH"] = fake_dir  # the fake libcuda and libcupti, in every rank
    got = mpirun(2, [BRICKPROF, "run", "--log", "off", "--formats", "json", "--output",
                     os.path.join(folder, "g"), "--", gpu_job])
    check(sorted(got.stdout.splitlines()) == ["rank 0: 3 kernels, sum 1", "rank 1: 4 kernels, sum 1"],
          "mpi_gpu_job printed: %r" % got.stdout)
    gpu_job_file = os.path.join(folder, "g-job.json")
    require(os.path.exists(gpu_job_file), "no %s (files: %s)" % (gpu_job_file, os.listdir(folder)))
    summary_ranks = json.load(open(gpu_job_file))["ranks"]
    for r in range(2):
        nodes = json.load(open(os.path.join(folder, "g-r%d.json" % r)))["nodes"]
        want = {}
        for n in nodes:
            if n["kind"] == "kernel":
                count, total = want.get(n["name"], (0, 0))
                want[n["name"]] = (count + 1, total + n["end_ns"] - n["start_ns"])
        mine = {k["name"]: (k["count"], k["total_ns"]) for k in summary_ranks[r]["kernels"]}
        check(mine == want and want.get("axpy", (0,))[0] == 2 + r,
              "rank %d: summary kernels %s, trace %s" % (r, mine, want))
        kernels_checked += sum(c for c, _ in mine.values())
        peaks = {m["account"]: m["peak_bytes"] for m in summary_ranks[r]["memory_peaks"]}
        want_peaks = {a["label"]: a["peak_bytes"] for a in report_json(
            os.path.join(folder, "g-r%d.json" % r), "--memory")["memory"]["accounts"]}
        check(peaks == want_peaks and peaks.get("GPU 0 device memory") == 4096,
              "rank %d: memory peaks %s, report --memory %s" % (r, peaks, want_peaks))

print("ok: %d ranks summarised (%s bytes sent, gathered in %.2f ms); %d near-tie stragglers "
      "not compared; rank 3 without the agent left out; %d kernels of a 2-rank GPU job (fake "
      "driver) checked" %
      (RANKS, [r["wire_bytes"] for r in raw["ranks"]], reduction["gather_records_ns"] / 1e6, ties,
       kernels_checked))
sys.exit(summary())
