"""Run by pip_test.py with the fresh venv's python (brickprof[jobs] from
PyPI, the venv's bin/ first on PATH): a job's Parquet dataset against
`brickprof report` on the job's merged trace.

- a 4-rank MPI job (tests/mpi/mpi_job.c: collectives of every wait
  pattern, two communicators) under mpirun and the venv's `brickprof run`,
  and generated jobs (job_generator.py: GPU ranks computing while they
  wait, drifting clocks, ties, incomplete instances), exported with
  `brickprof export --parquet` and merged with `brickprof merge`;
- DuckDB, and Dask (a LocalCluster of two workers it starts, and one
  given by its scheduler's address), give every figure of `report --json
  --ranks --collectives --imbalance --rank-path` on the merged trace,
  equal (node ids: the rank's own, the merge's less the ranks before it),
  through brickprof.dataset and through `brickprof sql --json`;
- each rank's nodes in its shard are brickprof.load's of that rank merged
  alone (its times on the job's timeline), its bricks `report --summary`'s;
  a GPU trace's kernels, transfers and syncs, a trace's Python frames and
  memory events, are in their tables; every column of every table is in python/README.md;
- a rank missing, duplicated, cut short, or whose export did not finish: one
  line naming it (exit 2), DatasetError from brickprof.dataset; a python
  without the package: one line saying what to pip install.

usage: jobs_checks.py SOURCE_DIR DATA_DIR WORK_DIR [MPI_JOB]
"""
import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import brickprof

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mpi"))
from checks import check, load_json, require, run, summary  # noqa: E402

RANKS = 4
VIEWS = ["ranks", "collectives", "imbalance", "rank-path"]


def report_json(trace, *flags):
    return json.loads(run(["brickprof", "report", trace, "--json"] + list(flags)).stdout)


def differences(got, want, path=""):
    """Where two JSON values differ: equal numbers (0 and 0.0 alike), the
    same keys, lists of the same length."""
    if isinstance(want, dict):
        if not isinstance(got, dict) or set(got) != set(want):
            return ["%s: keys %s, report has %s" % (path, sorted(got) if isinstance(got, dict)
                                                     else type(got).__name__, sorted(want))]
        return [d for k in want for d in differences(got[k], want[k], path + "/" + k)]
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return ["%s: %s entries, report has %d" % (path, len(got) if isinstance(got, list)
                                                       else "not a list:", len(want))]
        return [d for i, (g, w) in enumerate(zip(got, want))
                for d in differences(g, w, "%s[%d]" % (path, i))]
    same = got == want and isinstance(got, bool) == isinstance(want, bool)
    return [] if same else ["%s: %r, report says %r" % (path, got, want)]


def compare(got, want, what):
    found = differences(got, want)
    check(not found, "%s: %d figures differ from report on the merged trace: %s" % (
        what, len(found), "; ".join(found[:8])))


def own_node_ids(want, node_counts):
    """The merged trace numbers each rank's nodes after the ranks before it."""
    base = [sum(node_counts[:r]) for r in range(len(node_counts))]
    for instance in want["collectives"]["instances"]:
        for call in instance["calls"]:
            call["node"] -= base[call["rank"]]
    return want


def mpi_job_checks(mpi_job, work):
    from mpi_common import mpirun

    folder = os.path.join(work, "job")
    os.makedirs(folder)
    p = mpirun(RANKS, ["brickprof", "run", "--log", "off", "--formats", "json,parquet",
                       "--output", os.path.join(folder, "job"), "--", mpi_job, "3"])
    check(p.stdout.count(" layers, ") == RANKS, "mpi_job printed: %r" % p.stdout)
    traces = [os.path.join(folder, "job-r%d.json" % r) for r in range(RANKS)]
    for t in traces:
        require(os.path.exists(t), "no %s (files: %s)" % (t, os.listdir(folder)))
    check(sorted(os.listdir(folder)) == sorted([os.path.basename(t) for t in traces] +
                                               ["job-job.json", "parquet"]),
          "run --formats json,parquet wrote: %s" % sorted(os.listdir(folder)))
    merged = os.path.join(work, "merged.json")
    run(["brickprof", "merge"] + traces + ["-o", merged])
    want = own_node_ids(report_json(merged, *("--" + v for v in VIEWS)),
                        [len(brickprof.load(t).nodes) for t in traces])
    check(len(want["collectives"]["instances"]) > 30, "the job's collectives: %d" %
          len(want["collectives"]["instances"]))

    # Each rank's `brickprof run --formats parquet` wrote its shard into the
    # folder's dataset, as export does for all four at once.
    with brickprof.dataset(os.path.join(folder, "parquet")) as ds:
        compare(ds.report(VIEWS), want, "run --formats parquet's dataset")
    shards = os.path.join(work, "shards")
    r = run(["brickprof", "export", "--parquet", shards] + traces)
    check(r.stderr.count("brickprof: wrote rank ") == RANKS, "export said: %r" % r.stderr)
    for engine in ("duckdb", "dask"):
        with brickprof.dataset(shards, engine=engine, workers=2) as ds:
            compare(ds.report(VIEWS), want, "brickprof.dataset(engine=%r)" % engine)
            if engine == "duckdb":
                per_rank_checks(ds, traces, work)
    for engine in ("duckdb", "dask"):
        got = json.loads(run(["brickprof", "sql", shards, "--json", "--engine", engine,
                              "--workers", "2"] + ["--" + v for v in VIEWS]).stdout)
        compare(got, want, "brickprof sql --json --engine " + engine)
    rows = run(["brickprof", "sql", shards, "select rank, count(*) as n from mpi_calls "
                "where op = 'allreduce' group by rank order by rank", "--json"]).stdout
    check([json.loads(line)["n"] for line in rows.split()] == [6] * RANKS,
          "brickprof sql: allreduce calls per rank: %r" % rows)
    size = sum(os.path.getsize(f) for f in glob.glob(shards + "/**/*.parquet", recursive=True))
    nodes = sum(len(brickprof.load(t).nodes) for t in traces)
    print("jobs: %d ranks, %d nodes: %d bytes of Parquet (%.0f per node; a small job is mostly "
          "the files' own overhead)" % (RANKS, nodes, size, size / nodes))
    bad_input_checks(shards, traces, work)


def generated_checks(work, scheduler):
    """Generated jobs against their merge, on DuckDB and on a Dask cluster."""
    import job_generator

    for seed in range(1, 5):
        folder = os.path.join(work, "gen-%d" % seed)
        os.makedirs(folder)
        traces = job_generator.write_job(folder, 5, seed)
        merged = os.path.join(folder, "merged.json")
        run(["brickprof", "merge"] + traces + ["-o", merged])
        want = own_node_ids(report_json(merged, *("--" + v for v in VIEWS)),
                            [len(brickprof.load(t).nodes) for t in traces])
        shards = os.path.join(folder, "shards")
        brickprof.export_parquet(traces, shards)
        for engine in ("duckdb", "dask") if seed <= 2 else ("duckdb",):
            with brickprof.dataset(shards, engine=engine, scheduler=scheduler) as ds:
                compare(ds.report(VIEWS), want, "generated job %d, %s" % (seed, engine))


def per_rank_checks(ds, traces, work):
    bricks = ds.top_bricks(None)
    for rank, trace in enumerate(traces):
        alone = os.path.join(work, "rank%d.json" % rank)
        run(["brickprof", "merge", "--partial", trace, "-o", alone])
        want = report_json(alone, "--summary")["summary"]["bricks"]
        got = bricks[bricks["rank"] == rank].to_dict("records")
        fields = ["name", "category", "count", "total_ns", "avg_ns", "min_ns", "max_ns", "gpu_ns",
                  "kernels", "elements", "elements_per_s"]
        compare([{k: (v.item() if hasattr(v, "item") else v) for k, v in g.items() if k in fields}
                 for g in got], [{k: w[k] for k in fields} for w in want],
                "rank %d: bricks" % rank)
        t = brickprof.load(alone)
        nodes = ds.sql("select * from nodes where rank = %d order by id" % rank)
        for column in ("kind", "name", "path"):
            check(nodes[column].tolist() == t.nodes[column].astype(str).tolist(),
                  "rank %d: nodes.%s differs from brickprof.load's" % (rank, column))
        for column in ("parent", "start_ns", "end_ns", "brick", "layer_index", "elements"):
            check(nodes[column].tolist() == t.nodes[column].tolist(),
                  "rank %d: nodes.%s differs from brickprof.load's" % (rank, column))
    aligned = ds.ranks["aligned"].tolist()
    check(aligned == [False] + [True] * (RANKS - 1),
          "ranks 1-3 moved onto rank 0's clock, rank 0 not: %s" % aligned)


def one_line(args, *words):
    r = subprocess.run(args, capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    ok = r.returncode == 2 and not r.stdout and len(lines) == 1 and \
        all(w in r.stderr for w in words)
    check(ok, "%s: exit %d, stdout %r, stderr %r (wanted one line with %s)" % (
        " ".join(args[:3]), r.returncode, r.stdout[:200], r.stderr, words))


def bad_input_checks(shards, traces, work):
    def copy(name):
        path = os.path.join(work, name)
        shutil.copytree(shards, path)
        return path

    def rank_files(folder, rank):
        return glob.glob(os.path.join(folder, "*", "job=*", "rank=%d" % rank, "*.parquet"))

    missing = copy("missing")
    for f in rank_files(missing, 2):
        os.remove(f)
    one_line(["brickprof", "sql", missing, "--ranks"], "rank 2 of 4", "missing")
    try:
        brickprof.dataset(missing)
        check(False, "a dataset without rank 2 opened")
    except brickprof.DatasetError as e:
        check("rank 2 of 4" in str(e), "DatasetError: %s" % e)
    with brickprof.dataset(missing, partial=True) as ds:
        check(ds.ranks["rank"].tolist() == [0, 1, 3], "partial=True: ranks %s" %
              ds.ranks["rank"].tolist())

    # Another process as rank 1 of the same job: refused at export...
    other = load_json(traces[1])
    other["process"]["pid"] += 100000
    impostor = os.path.join(work, "impostor.json")
    with open(impostor, "w") as f:
        json.dump(other, f)
    one_line(["brickprof", "export", "--parquet", copy("twice"), impostor],
             "rank 1 of job", "already in", "impostor.json")
    # ... and found when opened, if two exports wrote it side by side.
    duplicated = copy("duplicated")
    for f in rank_files(duplicated, 1):
        shutil.copy(f, os.path.join(os.path.dirname(f), "other-1.parquet"))
    one_line(["brickprof", "sql", duplicated, "--ranks"], "rank 1 of job", "2 shards",
             "other-1.parquet")

    truncated = copy("truncated")
    nodes = [f for f in rank_files(truncated, 3) if "/nodes/" in f][0]
    with open(nodes, "r+b") as f:
        f.truncate(os.path.getsize(nodes) // 2)
    one_line(["brickprof", "sql", truncated, "--collectives"], nodes, "truncated")

    unfinished = copy("unfinished")
    for f in rank_files(unfinished, 0):
        if "/ranks/" in f:
            os.remove(f)
    one_line(["brickprof", "sql", unfinished, "select 1"], "rank 0 of job",
             "export did not finish")
    one_line(["brickprof", "sql", os.path.join(work, "nowhere"), "--ranks"], "no such folder")
    one_line(["brickprof", "export", "--parquet", os.path.join(work, "x"),
              os.path.join(work, "merged.json")], "merged.json", "a merged trace")
    one_line(["brickprof", "export", "--parquet", os.path.join(work, "x"),
              os.path.join(work, "nowhere.json")], "nowhere.json")


def trace_checks(data, work):
    """A GPU trace's tables, and a trace's Python frames."""
    fixture = os.path.join(data, "gpu", "bricklayer-graph.json")
    shards = os.path.join(work, "gpu-shards")
    brickprof.export_parquet([fixture], shards)
    t = brickprof.load(fixture)
    with brickprof.dataset(shards) as ds:
        counts = ds.sql("select (select count(*) from kernels) k, (select count(*) from "
                        "transfers) t, (select count(*) from syncs) s").iloc[0].tolist()
        want = [len(t.kernels), len(t.transfers), int((t.gpu["kind"] == "sync").sum())]
        check(counts == want, "GPU fixture: kernels, transfers, syncs %s, load has %s" % (
            counts, want))
        kernels = ds.top_kernels(None)
        by_name = t.kernels.groupby(t.kernels["name"].astype(str))["duration_ns"].agg(
            ["count", "sum"])
        check(sorted(zip(kernels["name"], kernels["count"], kernels["total_ns"])) ==
              sorted((n, int(c), int(s)) for n, (c, s) in by_name.iterrows()),
              "GPU fixture: kernels per name differ from brickprof.load's")
        bricks = ds.top_bricks(None)
        want = report_json(fixture, "--summary")["summary"]["bricks"]
        check([(b["name"], b["gpu_ns"], b["kernels"]) for b in want] ==
              list(zip(bricks["name"], bricks["gpu_ns"], bricks["kernels"])),
              "GPU fixture: bricks' GPU time differs from report --summary")
        check(ds.ranks["job"].tolist() == ["none"] and ds.ranks["rank"].tolist() == [0],
              "a trace not run as a rank: job %s rank %s" % (ds.ranks["job"].tolist(),
                                                            ds.ranks["rank"].tolist()))

    # Memory events: the agent's own trace of a run that allocated.
    memory_trace = os.path.join(data, "analyses", "memory_agent.json")
    shards = os.path.join(work, "memory-shards")
    brickprof.export_parquet([memory_trace], shards)
    want = load_json(memory_trace)["memory"]
    with brickprof.dataset(shards) as ds:
        rows = ds.sql("select op, source, bytes, name, time_ns from memory").values.tolist()
        check([r[:4] for r in rows] == [[e["op"], e["source"], e.get("bytes", 0), e["api"]]
                                        for e in want],
              "memory events: %s, the trace has %s" % (rows[:3], want[:3]))
        check([r[4] for r in rows] == [e["t"] for e in want], "memory events' times")

    frames_trace = os.path.join(work, "frames.json")
    with open(frames_trace, "w") as f:
        json.dump({
            "schema": "brickprof/1", "process": {"pid": 7, "program": "serve.py"},
            "devices": [{"id": 0, "name": "GPU"}], "threads": [{"tid": 1, "name": "main"}],
            "python_frames": [{"file": "/src/model.py", "line": 212, "function": "Model.forward"},
                              {"file": "/src/serve.py", "line": 9, "function": "main"}],
            "python_stacks": [[0, 1]],
            "nodes": [{"id": 0, "kind": "kernel", "name": "gemm", "parent": None, "thread": 1,
                       "start_ns": 100, "end_ns": 200, "device": 0, "stream": 7,
                       "correlation": 1, "api_start_ns": 50, "api_end_ns": 60,
                       "python_stack": 0}],
            "edges": []}, f)
    shards = os.path.join(work, "frames-shards")
    brickprof.export_parquet(frames_trace, shards)
    with brickprof.dataset(shards) as ds:
        rows = ds.sql("select f.depth, f.file, f.line, f.function from kernels k join "
                      "python_frames f on f.stack = k.python_stack order by f.depth")
        check(rows.values.tolist() == [[0, "/src/model.py", 212, "Model.forward"],
                                       [1, "/src/serve.py", 9, "main"]],
              "the kernel's Python stack: %s" % rows.values.tolist())


def schema_checks(source):
    from brickprof import _shards

    readme = open(os.path.join(source, "python", "README.md")).read()
    section = readme[readme.find("## A job as Parquet"):]
    for table, columns in _shards.SCHEMA.items():
        check("`%s`" % table in section, "python/README.md does not describe table %s" % table)
        for c in columns:
            check("`%s`" % c in section, "python/README.md does not describe %s.%s" % (table, c))
    check(_shards.FORMAT in section, "python/README.md does not name " + _shards.FORMAT)


def run_parquet_check(work):
    """A process not of a job: run --formats parquet writes PREFIX.parquet/,
    whose nodes are the trace's."""
    prefix = os.path.join(work, "single", "one")
    os.makedirs(os.path.dirname(prefix))
    program = "import brickprof\nwith brickprof.scope('step'):\n    pass\n"
    r = run(["brickprof", "run", "--formats", "parquet", "-o", prefix, "--", sys.executable,
             "-c", program])
    check("brickprof: wrote " + prefix + ".json" in r.stderr, "run said: %r" % r.stderr)
    require(os.path.isdir(prefix + ".parquet"), "no %s.parquet (files: %s)" % (
        prefix, os.listdir(os.path.dirname(prefix))))
    with brickprof.dataset(prefix + ".parquet") as ds:
        names = ds.sql("select name from nodes")["name"].tolist()
    check("step" in names, "the dataset's nodes: %r" % names)


def missing_package_check(work):
    bare = os.path.join(work, "bare")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", bare], check=True)
    env = dict(os.environ, BRICKPROF_PYTHON=os.path.join(bare, "bin", "python3"))
    r = subprocess.run(["brickprof", "export", "--parquet", os.path.join(work, "y"), "t.json"],
                       capture_output=True, text=True, env=env)
    check(r.returncode == 2 and "pip install '.[jobs]'" in r.stderr and
          len(r.stderr.strip().splitlines()) == 1,
          "brickprof export without the package: exit %d, %r" % (r.returncode, r.stderr))
    # run --formats parquet refuses before the program starts.
    marker = os.path.join(work, "ran")
    r = subprocess.run(["brickprof", "run", "--formats", "json,parquet", "-o",
                        os.path.join(work, "x"), "--", "touch", marker],
                       capture_output=True, text=True, env=env)
    check(r.returncode == 2 and "pip install '.[jobs]'" in r.stderr and
          len(r.stderr.strip().splitlines()) == 1 and not os.path.exists(marker),
          "brickprof run --formats parquet without the package: exit %d, %r, ran: %s" % (
              r.returncode, r.stderr, os.path.exists(marker)))


def main():
    source, data, work = sys.argv[1:4]
    mpi_job = sys.argv[4] if len(sys.argv) > 4 else ""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    schema_checks(source)
    trace_checks(data, work)
    missing_package_check(work)
    run_parquet_check(work)
    if not mpi_job:
        print("jobs: no MPI job built (no Open MPI at configure time): its checks not run")
    elif not shutil.which("mpirun"):
        print("jobs: no mpirun (scripts/setup installs openmpi-bin): the MPI job's checks not run")
    else:
        mpi_job_checks(mpi_job, work)
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        generated_checks(work, cluster.scheduler_address)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
