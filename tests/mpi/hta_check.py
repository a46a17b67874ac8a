"""Holistic Trace Analysis (from PyPI, in a virtual environment it makes
once and keeps) reads the per-rank Chrome exports of a two-rank bricklayer
run without a warning about the traces, and its per-rank temporal
breakdown agrees with `brickprof report --ranks` within 1 % of the step.
Exit 77 when PyPI cannot be reached.

usage: hta_check.py BRICKPROF BRICKLAYER WORKDIR"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import fail, require, run, skip  # noqa: E402
from mpi_common import mpirun, mpirun_or_skip, tp_plugin_or_skip  # noqa: E402

BRICKPROF, BRICKLAYER, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
HTA_VERSION = "0.5.0"
VENV = os.environ.get("BRICKPROF_HTA_VENV") or os.path.join(
    os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "brickprof",
    "hta-" + HTA_VERSION)
# Bricks of tens of microseconds: HTA rounds to whole microseconds, which
# must stay well inside 1 % of a step.
MODEL = ["--layers", "2", "--hidden", "1024", "--heads", "8", "--kv-heads", "4", "--ffn", "4096",
         "--vocab", "4096", "--context", "64", "--prompt", "4", "--tokens", "8", "--threads", "1",
         "--probe-seconds", "0"]
# Said by HTA for any trace it reads, Kineto's included (timings, the
# rounding of nanosecond timestamps): not about ours.
GENERIC = ("Parsed ", "leaving ", "Rounding down ns resolution")


def venv_python():
    python = os.path.join(VENV, "bin", "python")
    if os.path.exists(os.path.join(VENV, ".complete")):
        return python
    shutil.rmtree(VENV, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    p = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "HolisticTraceAnalysis==" + HTA_VERSION], capture_output=True, text=True,
                       timeout=900)
    if p.returncode != 0:
        shutil.rmtree(VENV, ignore_errors=True)
        skip("HolisticTraceAnalysis could not be installed from PyPI (unreachable?): " +
             (p.stderr.strip().splitlines() or ["no output"])[-1])
    open(os.path.join(VENV, ".complete"), "w").close()
    return python


HTA_SCRIPT = r"""
import json, logging, sys
records = []
class Keep(logging.Handler):
    def emit(self, record):
        if record.levelno >= logging.WARNING:
            records.append(record.getMessage())
from hta.configs.config import logger
logger.addHandler(Keep())
from hta.trace_analysis import TraceAnalysis
# Every step: brickprof's view covers them all (HTA leaves the last out by default).
analyzer = TraceAnalysis(trace_dir=sys.argv[1], include_last_profiler_step=True)
df = analyzer.get_temporal_breakdown(visualize=False)
print(json.dumps({"warnings": records, "ranks": sorted(analyzer.t.traces.keys()),
                  "rows": json.loads(df.to_json(orient="records"))}))
"""

tp_plugin_or_skip(BRICKLAYER)
mpirun_or_skip()
python = venv_python()
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
mpirun(2, [BRICKPROF, "run", "--log", "off", "--formats", "json", "--output",
           os.path.join(WORK, "bl"), "--", BRICKLAYER] + MODEL + ["--tp", "2"])
files = [os.path.join(WORK, "bl-r%d.json" % r) for r in (0, 1)]
# HTA reads a folder of per-rank Chrome traces: the decode steps of each rank.
chrome = os.path.join(WORK, "chrome")
os.makedirs(chrome)
for r, f in enumerate(files):
    run([BRICKPROF, "report", f, "--under", "decode token", "--chrome", "-o",
         os.path.join(chrome, "rank%d.trace.json" % r)])
merged = os.path.join(WORK, "merged.json")
run([BRICKPROF, "merge"] + files + ["-o", merged])
ours = json.loads(run([BRICKPROF, "report", merged, "--under", "decode token", "--ranks",
                       "--json"]).stdout)["ranks"]
rank_of = {x["index"]: x["rank"] for x in ours["ranks"]}
ours = {rank_of[row["rank"]]: row for row in ours["rows"]}

p = subprocess.run([python, "-c", HTA_SCRIPT, chrome], capture_output=True, text=True,
                   timeout=600)
if p.returncode != 0:
    fail("HTA failed:\n" + p.stdout + p.stderr)
hta = json.loads(p.stdout.strip().splitlines()[-1])
ours_warnings = [w for w in hta["warnings"] if not w.startswith(GENERIC)]
require(not ours_warnings, "HTA warned about the traces: %s" % ours_warnings)
require(hta["ranks"] == [0, 1], "HTA saw ranks %s" % hta["ranks"])
for row in hta["rows"]:
    rank = row["rank"]
    b = ours[rank]
    step_us = b["span_ns"] / 1000
    # HTA sees a CPU rank's compute only (its communication is not on the
    # CPU work track), so it measures over the span of that compute, and
    # what is not compute there is idle to it: what brickprof splits into
    # waiting, communication and idle.
    compute_span_us = (b["compute_end_ns"] - b["compute_start_ns"]) / 1000
    pairs = [("kernel_time", row["kernel_time(us)"], compute_span_us),
             ("compute", row["compute_time(us)"], b["compute_ns"] / 1000),
             ("rest", row["idle_time(us)"] + row["non_compute_time(us)"],
              compute_span_us - b["compute_ns"] / 1000)]
    for what, theirs, mine in pairs:
        require(abs(theirs - mine) <= 0.01 * step_us,
                "rank %d %s: HTA %.1f us, brickprof %.1f us (step %.1f us)" %
                (rank, what, theirs, mine, step_us))
    print("rank %d: step %.1f us; compute HTA %.1f / brickprof %.1f us; the rest of its compute's "
          "span HTA %.1f / brickprof %.1f us" %
          (rank, step_us, row["compute_time(us)"], b["compute_ns"] / 1000,
           row["idle_time(us)"] + row["non_compute_time(us)"],
           compute_span_us - b["compute_ns"] / 1000))
print("ok: HTA %s agrees with brickprof within 1%% of the step" % HTA_VERSION)
