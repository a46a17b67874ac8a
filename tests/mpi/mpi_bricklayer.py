"""bricklayer --tp 2 under `mpirun -np 2 brickprof run`: the tokens of the
single-rank run, two rank files, merged; the report shows both ranks, the
communication bricks, per-collective skew and the imbalance; with rank 1
slowed on purpose by a busy wait in every layer, rank 1 is the straggler of
every layer and its delay comes back from the trace within 10 % (of the
delay bricklayer measured itself: on a busy machine a busy wait runs
past its end when the thread loses its core).

usage: mpi_bricklayer.py BRICKPROF BRICKLAYER WORKDIR"""
import json
import os
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import require, run  # noqa: E402
from mpi_common import mpirun, mpirun_or_skip, tp_plugin_or_skip  # noqa: E402

BRICKPROF, BRICKLAYER, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
MODEL = ["--layers", "2", "--hidden", "512", "--heads", "8", "--kv-heads", "4", "--ffn", "1024",
         "--vocab", "1024", "--context", "64", "--prompt", "4", "--tokens", "8", "--threads", "1",
         "--probe-seconds", "0"]
SLOW_US = 30000  # rank 1's busy wait per layer


def tokens(stdout):
    found = re.findall(r"^generated \(seq 0\):(.*)$", stdout, re.M)
    require(len(found) == 1, "one token line expected, got:\n" + stdout)
    return found[0].split()


def tp_run(name, extra=()):
    folder = os.path.join(WORK, name)
    os.makedirs(folder)
    p = mpirun(2, [BRICKPROF, "run", "--log", "off", "--formats", "json", "--output",
                   os.path.join(folder, "bl"), "--", BRICKLAYER] + MODEL +
               ["--tp", "2"] + list(extra))
    files = [os.path.join(folder, "bl-r%d.json" % r) for r in (0, 1)]
    for f in files:
        require(os.path.exists(f), "no %s (files: %s)" % (f, os.listdir(folder)))
    merged = os.path.join(folder, "merged.json")
    run([BRICKPROF, "merge"] + files + ["-o", merged])
    return tokens(p.stdout), merged, p.stderr


tp_plugin_or_skip(BRICKLAYER)
mpirun_or_skip()
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
single = tokens(run([BRICKLAYER] + MODEL).stdout)

got, merged, _ = tp_run("even")
require(got == single, "tokens %s, single rank %s" % (got, single))
text = run([BRICKPROF, "report", merged, "--summary", "--ranks", "--collectives",
            "--imbalance", "--rank-path"]).stdout
for words in ["rank 0", "rank 1", "AllReduce", "Communication", "Collectives:", "skew total",
              "Load imbalance", "max/mean", "Critical path across ranks"]:
    require(words in text, "%r missing from the report:\n%s" % (words, text))

got, merged, stderr = tp_run("slowed", ["--test-slow-rank", "1", "--test-slow-us", str(SLOW_US)])
held = re.findall(r"rank 1: --test-slow-us held up \d+ layers, ([0-9.]+) us each", stderr)
require(len(held) == 1, "bricklayer did not say what it held rank 1 up by:\n" + stderr)
delay_us = float(held[0])
require(delay_us >= SLOW_US, "held up %.0f us, asked for %d" % (delay_us, SLOW_US))
require(got == single, "slowed: tokens %s, single rank %s" % (got, single))
# Every layer, prefill's too: the busy waits bricklayer measured.
views = json.loads(run([BRICKPROF, "report", merged, "--imbalance", "--collectives",
                        "--json"]).stdout)
imbalance = views["imbalance"]
rank_of = {r["index"]: r["rank"] for r in imbalance["ranks"]}
require(len(imbalance["layers"]) == 2, "layers: %s" % imbalance["layers"])
for layer in imbalance["layers"]:
    require(rank_of[layer["straggler"]] == 1, "layer %d: straggler rank %d" %
            (layer["layer"], rank_of[layer["straggler"]]))
    excess_us = layer["excess_per_instance_ns"] / 1000
    require(abs(excess_us - delay_us) <= 0.1 * delay_us,
            "layer %d: rank 1 is %.0f us slower per instance, held up %.0f us" %
            (layer["layer"], excess_us, delay_us))
coll = views["collectives"]
per_rank = {rank_of[p["rank"]]: p for p in coll["per_rank"]}
# The collectives the slowdown held up (skew over half of it) had rank 1
# last; the others are near ties, which either rank may win.
held_up = [c for c in coll["instances"] if c["skew_ns"] > SLOW_US * 1000 / 2]
require(len(held_up) >= len(imbalance["layers"]), "held-up collectives: %d" % len(held_up))
require(all(rank_of[c["straggler"]] == 1 for c in held_up),
        "rank 1 should arrive last at every collective it held up: %s" %
        [(c["op"], c["seq"], rank_of[c["straggler"]], c["skew_ns"]) for c in held_up])
require(per_rank[0]["wait_ns"] > per_rank[1]["wait_ns"], "rank 0 should wait: %s" % per_rank)
print("ok: tokens %s on 1 and 2 ranks; slowed rank 1 recovered at %s us per layer "
      "(held up %.0f us, asked %d)" %
      (" ".join(single), ", ".join("%.0f" % (l["excess_per_instance_ns"] / 1000)
                                   for l in imbalance["layers"]), delay_us, SLOW_US))
