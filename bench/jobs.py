"""A job too large for one machine, four ways: `brickprof merge` + `report`,
DuckDB over the job's Parquet shards, Dask (a local cluster of two
workers) over the same shards, and Holistic Trace Analysis over the ranks'
Chrome exports. Per size RANKSxEVENTS (generated ranks of EVENTS nodes
each, bench/analysis/gen_ranks: GPU kernels, copies and syncs under layers
of bricks, each layer ending in an MPI_Allreduce matched across ranks):

- the ranks are generated and exported (`python3 -m brickprof export
  --parquet`, two processes at a time) a few at a time, so the JSON of a
  job larger than the disk never lies there at once; bytes per event of
  JSON and of Parquet, and the export's time;
- each way computes the cross-rank views (`--ranks --collectives
  --imbalance --rank-path --json`; HTA: its temporal breakdown, the view
  `--ranks` matches) as its own process tree, timed, its memory the peak of
  the tree's summed resident set (sampled every 0.1 s; every process of a
  local Dask cluster counted). A run past --cap-gib is stopped and marked
  "over cap"; a way is not tried on sizes above one it could not do;
- DuckDB's and Dask's JSON are checked equal to report's where both ran.

Then the fitted growth exponent of each way's time over the sizes it did,
and the largest job each did within the cap.

  python3 bench/jobs.py [--build build] [--dir DIR] [--cap-gib 12] [--memory-limit 4GB]
                        [--hta PYTHON] [--no-merge-above N] SIZE...     (SIZE: 16x1e5, 256x1e6)

Run it with a python that has brickprof[jobs] (pip install '.[jobs]');
--hta names a python with HolisticTraceAnalysis (tests/mpi/hta_check.py
keeps one in ~/.cache/brickprof/hta-0.5.0).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HTA_SCRIPT = r"""
import sys
from hta.trace_analysis import TraceAnalysis
analyzer = TraceAnalysis(trace_dir=sys.argv[1], include_last_profiler_step=True)
df = analyzer.get_temporal_breakdown(visualize=False)
print(len(df), "ranks")
"""
BATCH = 8  # ranks generated and exported at a time


def tree_rss(root):
    """Resident bytes of `root` and every process below it."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:  # bytes: a process's name may be any bytes
                with open("/proc/%s/stat" % name, "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                parents.setdefault(int(fields[1]), []).append(int(name))
            except (OSError, IndexError, ValueError):
                continue
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(parents.get(pid, []))
        try:
            with open("/proc/%d/statm" % pid) as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            pass
    return total


def measured(argv, cap_bytes, log):
    """Runs argv; (seconds, peak MiB of the tree, "ok" | "over cap" | "failed")."""
    start = time.monotonic()
    with open(log, "w") as out:
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    peak, state = 0, {"over": False}

    def watch():
        nonlocal peak
        while p.poll() is None:
            rss = tree_rss(p.pid)
            peak = max(peak, rss)
            if rss > cap_bytes:
                state["over"] = True
                os.killpg(p.pid, 9)
                return
            time.sleep(0.1)

    watcher = threading.Thread(target=watch)
    watcher.start()
    code = p.wait()
    watcher.join()
    took = time.monotonic() - start
    outcome = "over cap" if state["over"] else "ok" if code == 0 else "failed (exit %d)" % code
    return took, peak / 2**20, outcome


def exponent(xs, ys):
    lx, ly = [math.log(v) for v in xs], [math.log(v) for v in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def same_figures(ours, report_path, node_counts):
    want = json.load(open(report_path))
    base = [sum(node_counts[:r]) for r in range(len(node_counts))]
    for instance in want["collectives"]["instances"]:
        for call in instance["calls"]:
            call["node"] -= base[call["rank"]]
    return json.load(open(ours)) == want


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", nargs="+", metavar="SIZE")
    ap.add_argument("--build", default="build")
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--cap-gib", type=float, default=12)
    ap.add_argument("--memory-limit", default="4GB", help="DuckDB's, in each engine")
    ap.add_argument("--hta", help="a python with HolisticTraceAnalysis")
    ap.add_argument("--hta-above", type=float, default=7e6,
                    help="skip HTA above this many events in all")
    ap.add_argument("--no-merge-above", type=float, default=3e7,
                    help="skip merge + report above this many events in all (disk: ~333 B each)")
    o = ap.parse_args()
    brickprof = os.path.join(o.build, "tools", "brickprof")
    gen = os.path.join(o.build, "bench", "analysis", "gen_ranks")
    cap = int(o.cap_gib * 2**30)
    sizes = sorted(((int(r), float(e)) for r, e in (s.split("x") for s in o.sizes)),
                   key=lambda s: s[0] * s[1])
    results = []
    gave_up = set()
    work = tempfile.mkdtemp(prefix="brickprof-bench-jobs-", dir=o.dir)
    print("%-10s %12s %8s %8s %8s | %-28s | %-28s | %-28s | %-28s" % (
        "ranks", "events", "JSON B/e", "pq B/e", "export s", "merge+report s, MiB",
        "duckdb s, MiB", "dask s, MiB", "hta s, MiB"))
    try:
        for ranks, events in sizes:
            total = ranks * events
            folder = os.path.join(work, "%dx%g" % (ranks, events))
            shards, chrome = os.path.join(folder, "shards"), os.path.join(folder, "chrome")
            os.makedirs(chrome)
            merge = "merge" not in gave_up and total <= o.no_merge_above
            hta = o.hta and "hta" not in gave_up and total <= o.hta_above
            json_bytes, export_s = 0, 0.0
            for first in range(0, ranks, BATCH):
                subprocess.run([gen, folder, str(ranks), str(events), str(first), str(BATCH)],
                               check=True)
                files = [os.path.join(folder, "rank%d.json" % r)
                         for r in range(first, min(ranks, first + BATCH))]
                json_bytes += sum(os.path.getsize(f) for f in files)
                # Two at a time, as two ranks on two machines would.
                start = time.monotonic()
                exports = [subprocess.Popen([sys.executable, "-m", "brickprof", "export",
                                             "--quiet", "--parquet", shards] + part)
                           for part in (files[0::2], files[1::2]) if part]
                if any(p.wait() != 0 for p in exports):
                    sys.exit("export failed")
                export_s += time.monotonic() - start
                for r, f in zip(range(first, first + BATCH), files):
                    if hta:
                        subprocess.run([brickprof, "report", f, "--chrome", "-o",
                                        os.path.join(chrome, "rank%d.trace.json" % r)],
                                       check=True, stderr=subprocess.DEVNULL)
                    if not merge:
                        os.remove(f)
            parquet_bytes = sum(os.path.getsize(os.path.join(d, f))
                                for d, _, fs in os.walk(shards) for f in fs)
            row = {"ranks": ranks, "events": total, "json_b": json_bytes / total,
                   "parquet_b": parquet_bytes / total, "export_s": export_s}
            views = ["--ranks", "--collectives", "--imbalance", "--rank-path", "--json"]
            report = os.path.join(folder, "report.json")
            if merge:
                files = [os.path.join(folder, "rank%d.json" % r) for r in range(ranks)]
                merged = os.path.join(folder, "merged.json")
                m = measured([brickprof, "merge", "--quiet"] + files + ["-o", merged], cap,
                             os.path.join(folder, "merge.log"))
                for f in files:
                    os.remove(f)
                if m[2] == "ok":
                    r = measured([brickprof, "report", merged] + views + ["-o", report], cap,
                                 os.path.join(folder, "report.log"))
                    m = (m[0] + r[0], max(m[1], r[1]), r[2])
                if os.path.exists(merged):
                    os.remove(merged)
                row["merge"] = m
                if m[2] != "ok":
                    gave_up.add("merge")
            for engine in ("duckdb", "dask"):
                if engine in gave_up:
                    continue
                out = os.path.join(folder, engine + ".json")
                argv = [sys.executable, "-m", "brickprof", "sql", shards] + views + [
                    "--engine", engine, "--memory-limit", o.memory_limit, "-o", out]
                if engine == "dask":
                    argv += ["--workers", "2"]
                row[engine] = measured(argv, cap, os.path.join(folder, engine + ".log"))
                if row[engine][2] != "ok":
                    gave_up.add(engine)
                elif merge and row["merge"][2] == "ok":
                    import pyarrow.parquet as pq

                    counts = pq.read_table(os.path.join(shards, "ranks"),
                                           columns=["rank", "rows_nodes"]).to_pandas()
                    counts = counts.sort_values("rank")["rows_nodes"].tolist()
                    row[engine + "_same"] = same_figures(out, report, counts)
            if hta:
                row["hta"] = measured([o.hta, "-c", HTA_SCRIPT, chrome], cap,
                                      os.path.join(folder, "hta.log"))
                if row["hta"][2] != "ok":
                    gave_up.add("hta")
            results.append(row)

            def cell(key):
                if key not in row:
                    return "-"
                s, mib, outcome = row[key]
                same = {True: " =", False: " DIFFERS"}.get(row.get(key + "_same"), "")
                return "%.1f s %.0f MiB%s" % (s, mib, same) if outcome == "ok" else \
                    "%s at %.0f s, %.0f MiB" % (outcome, s, mib)

            print("%-10d %12.3g %8.0f %8.1f %8.1f | %-28s | %-28s | %-28s | %-28s" % (
                ranks, total, row["json_b"], row["parquet_b"], export_s, cell("merge"),
                cell("duckdb"), cell("dask"), cell("hta")), flush=True)
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for key in ("merge", "duckdb", "dask", "hta"):
        done = [(r["events"], r[key][0]) for r in results if key in r and r[key][2] == "ok"]
        fit = "time ~ events^%.2f" % exponent(*zip(*done)) if len(done) >= 2 else "no fit"
        largest = max(done)[0] if done else 0
        print("%-7s %s over %d sizes; largest done within %.0f GiB: %.3g events" % (
            key, fit, len(done), o.cap_gib, largest))


if __name__ == "__main__":
    main()
