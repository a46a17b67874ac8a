"""What the MPI job summary costs at MPI_Finalize: bricklayer --tp N under
`mpirun -np N brickprof run` (oversubscribed, shared memory), 5 runs per
case, the figures rank 0 wrote into each <prefix>-job.json: the slowest
rank's walk of its events (summarize_ns), the two gathers (the sizes',
which ends when the last rank reaches MPI_Finalize, and the records'),
rank 0's unpacking, and the bytes a rank sent.

usage: python3 bench/mpi_job_summary.py BRICKPROF BRICKLAYER WORKDIR"""
import json
import os
import shutil
import statistics
import subprocess
import sys

BRICKPROF, BRICKLAYER, WORK = sys.argv[1:4]
RUNS = 5
env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none")


def job(np, tokens, run):
    folder = os.path.join(WORK, "np%d-t%d-%d" % (np, tokens, run))
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    model = ["--layers", "2", "--hidden", "1024", "--heads", "8", "--kv-heads", "4", "--ffn",
             "1024", "--vocab", "512", "--context", "64", "--prompt", "4", "--tokens",
             str(tokens), "--threads", "1", "--probe-seconds", "0", "--tp", str(np)]
    subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
                    "--mca", "btl", "self,vader", "-np", str(np), BRICKPROF, "run", "--log", "off",
                    "--formats", "json", "--output", os.path.join(folder, "bl"), "--",
                    BRICKLAYER] + model, env=env, check=True, capture_output=True)
    return json.load(open(os.path.join(folder, "bl-job.json")))


def spread(values, scale):
    return "%.1f [%.1f-%.1f]" % (statistics.median(values) / scale, min(values) / scale,
                                 max(values) / scale)


print("| ranks | tokens | scopes/rank | collectives/rank | summarize µs | gather sizes µs | "
      "gather records µs | unpack µs | bytes/rank | job.json bytes |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for tokens in (4, 32):
    for np in (2, 4):
        jobs = [job(np, tokens, run) for run in range(RUNS)]
        red = [j["reduction"] for j in jobs]
        r0 = jobs[0]["ranks"][0]
        size = os.path.getsize(os.path.join(WORK, "np%d-t%d-0" % (np, tokens), "bl-job.json"))
        print("| %d | %d | %d | %d | %s | %s | %s | %s | %d | %d |" % (
            np, tokens, r0["scopes"], len(r0["collectives"]),
            spread([max(r["summarize_ns"] for r in j["ranks"]) for j in jobs], 1e3),
            spread([r["gather_sizes_ns"] for r in red], 1e3),
            spread([r["gather_records_ns"] for r in red], 1e3),
            spread([r["unpack_ns"] for r in red], 1e3),
            max(r["wire_bytes"] for r in jobs[0]["ranks"]), size))
