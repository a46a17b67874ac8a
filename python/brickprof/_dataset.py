"""brickprof.dataset(DIR): a job's Parquet shards (brickprof export) as
DuckDB views, and the cross-rank analyses over them without merging the
ranks' traces.

The per-rank half of each analysis is SQL (_queries.py): DuckDB runs it
over every shard at once, out of core (it spills to disk past its memory
limit), or, with engine="dask", each rank's run is a Dask task on the
worker where the shard lies, so a job too large for one machine is
analysed by many. The cross-rank half (_cross_rank.py) runs on the small
per-rank results. Opening checks the shards first: a rank missing,
duplicated or cut short is one DatasetError naming it.
"""
import os
import shutil
import tempfile
import urllib.parse

import pandas as pd

from . import _cross_rank, _queries, _shards

VIEWS = ("ranks", "collectives", "imbalance", "rank-path")


class DatasetError(ValueError):
    """A dataset that cannot be analysed: the message names the shard and why."""


def _duckdb():
    try:
        import duckdb
    except ImportError:
        raise ImportError("brickprof.dataset needs DuckDB: pip install duckdb") from None
    return duckdb


def _parquet():
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError("brickprof.dataset needs pyarrow: pip install pyarrow") from None
    return pq


def _parquet_files(folder):
    if not os.path.isdir(folder):
        return []
    return sorted(f for f in os.listdir(folder) if f.endswith(".parquet"))


def _rank_folders(table_dir):
    """{rank: folder} under TABLE/job=J/."""
    out = {}
    for d in sorted(os.listdir(table_dir)) if os.path.isdir(table_dir) else []:
        if d.startswith("rank="):
            try:
                out[int(d[5:])] = os.path.join(table_dir, d)
            except ValueError:
                raise DatasetError("%s: not a rank folder (rank=N)" % os.path.join(table_dir, d))
    return out


def _source_of(pq, path):
    try:
        return pq.read_table(path, columns=["source"]).column(0)[0].as_py()
    except Exception:
        return "?"


def scan(path, job=None, partial=False):
    """The dataset's ranks rows (sorted by rank) and, per table, its files
    in the same order; DatasetError for a rank missing, duplicated or cut
    short, or a folder that is not a dataset."""
    pq = _parquet()
    if not os.path.isdir(path):
        raise DatasetError("%s: no such folder" % path)
    ranks_dir = os.path.join(path, "ranks")
    jobs = sorted(d[4:] for d in os.listdir(ranks_dir) if d.startswith("job=")) \
        if os.path.isdir(ranks_dir) else []
    if not jobs:
        raise DatasetError("%s: not a brickprof Parquet dataset (no ranks/job=*/ folder); write "
                           "one with: brickprof export --parquet %s TRACE..." % (path, path))
    if job is None:
        if len(jobs) > 1:
            raise DatasetError("%s holds %d jobs (%s): say which (job=...)" % (
                path, len(jobs), ", ".join(urllib.parse.unquote(j) for j in jobs)))
        folder = jobs[0]
    else:
        folder = _shards.partition_value(job)
        if folder not in jobs:
            raise DatasetError("%s: no job %s (it has %s)" % (
                path, job, ", ".join(urllib.parse.unquote(j) for j in jobs)))
    job_name = urllib.parse.unquote(folder)

    def where(table, rank):
        return "rank %d of job %s (%s)" % (rank, job_name,
                                           os.path.join(path, table, "job=" + folder,
                                                        "rank=%d" % rank))

    rows = []
    for rank, rank_dir in _rank_folders(os.path.join(ranks_dir, "job=" + folder)).items():
        files = _parquet_files(rank_dir)
        if len(files) > 1:
            raise DatasetError("%s: %d shards of one rank: %s (from %s); export each rank once" % (
                where("ranks", rank), len(files), ", ".join(files),
                ", ".join(_source_of(pq, os.path.join(rank_dir, f)) for f in files)))
        if not files:
            continue
        file = os.path.join(rank_dir, files[0])
        try:
            row = pq.read_table(file).to_pylist()[0]
        except Exception as e:
            raise DatasetError("%s: truncated or not Parquet (%s); export its trace again" % (
                file, str(e).splitlines()[0]))
        if row.get("format") != _shards.FORMAT:
            raise DatasetError("%s: written as %s, this brickprof reads %s; export it again" % (
                file, row.get("format"), _shards.FORMAT))
        row.update(job=job_name, rank=rank, shard=files[0])
        rows.append(row)
    by_rank = {r["rank"]: r for r in rows}

    tables = list(_shards.DATA_TABLES)
    files = {"ranks": [os.path.join(ranks_dir, "job=" + folder, "rank=%d" % r["rank"],
                                    r["shard"]) for r in rows]}
    for table in tables:
        folders = _rank_folders(os.path.join(path, table, "job=" + folder))
        for rank, rank_dir in folders.items():
            present = _parquet_files(rank_dir)
            if rank not in by_rank and present:
                raise DatasetError(
                    "%s: written, but the rank has no ranks/ row: its export did not finish; "
                    "export its trace again" % where(table, rank))
            if len(present) > 1:
                raise DatasetError("%s: %d shards of one rank (%s); export each rank once" % (
                    where(table, rank), len(present), ", ".join(present)))
        files[table] = []
        for row in rows:
            expected = row["rows_" + table]
            file = os.path.join(path, table, "job=" + folder, "rank=%d" % row["rank"],
                                row["shard"])
            if not os.path.exists(file):
                raise DatasetError("%s: no %s (the shard is incomplete); export its trace "
                                   "again" % (where(table, row["rank"]), row["shard"]))
            try:
                found = pq.read_metadata(file).num_rows
            except Exception as e:
                raise DatasetError("%s: truncated or not Parquet (%s); export its trace again" % (
                    file, str(e).splitlines()[0]))
            if found != expected:
                raise DatasetError("%s: %d rows, its export wrote %d; export its trace again" % (
                    file, found, expected))
            files[table].append(file)

    sizes = sorted({r["world_size"] for r in rows})
    if len(sizes) > 1:
        raise DatasetError("%s: ranks of worlds of %s ranks: not one job" % (
            path, " and ".join(str(s) for s in sizes)))
    world = sizes[0] if sizes else 0
    for r in rows:
        if world > 0 and r["rank"] >= world:
            raise DatasetError("%s: rank %d in a world of %d" % (where("ranks", r["rank"]),
                                                                   r["rank"], world))
    if world > 0 and not partial:
        for rank in range(world):
            if rank not in by_rank:
                raise DatasetError(
                    "%s: rank %d of %d of job %s is missing (%d exported); export its trace "
                    "(brickprof export --parquet %s TRACE), or open the ranks there with "
                    "partial=True" % (path, rank, world, job_name, len(rows), path))
    ranks = pd.DataFrame(rows).sort_values("rank", kind="stable").reset_index(drop=True)
    order = {r: i for i, r in enumerate(ranks["rank"])}
    for table in files:
        ranks_of = [int(os.path.basename(os.path.dirname(f))[5:]) for f in files[table]]
        files[table] = [f for _, f in sorted(zip((order[r] for r in ranks_of), files[table]))]
    return ranks, files


def _sql_text(s):
    return "'" + str(s).replace("'", "''") + "'"


def _create_views(con, files):
    for table, paths in files.items():
        if not paths:
            continue
        con.execute(
            "CREATE OR REPLACE VIEW %s AS SELECT * FROM read_parquet([%s], hive_partitioning = "
            "true, hive_types = {'job': VARCHAR, 'rank': BIGINT})"
            % (table, ", ".join(_sql_text(p) for p in paths)))


def _connect(files, memory_limit=None, threads=None, temp_directory=None):
    con = _duckdb().connect()
    con.execute("SET preserve_insertion_order = false")
    if memory_limit:
        con.execute("SET memory_limit = %s" % _sql_text(memory_limit))
    if threads:
        con.execute("SET threads = %d" % int(threads))
    if temp_directory:
        con.execute("SET temp_directory = %s" % _sql_text(temp_directory))
    _create_views(con, files)
    return con


def _run_queries(con, queries):
    return {name: con.execute(sql).df() for name, sql in queries.items()}


def rank_call(files, fn, rank, args, memory_limit=None):
    """A Dask task: fn(connection, rank, *args) over one rank's files, in an
    embedded DuckDB on the worker (one thread: the cluster's workers are the
    parallelism; spilling to a temporary folder of its own)."""
    with tempfile.TemporaryDirectory(prefix="brickprof-duckdb-") as temp:
        con = _connect(files, memory_limit=memory_limit, threads=1, temp_directory=temp)
        try:
            return fn(con, rank, *args)
        finally:
            con.close()


def _queries_of(con, rank, queries):
    return _run_queries(con, queries)


class _DuckDB:
    """Every rank at once, in this process."""

    def __init__(self, files, memory_limit, threads):
        self._temp = tempfile.mkdtemp(prefix="brickprof-duckdb-")
        self.con = _connect(files, memory_limit, threads, self._temp)

    def run(self, queries):
        return _run_queries(self.con, queries)

    def each_rank(self, fn, ranks, args):
        """[fn(connection, rank, *args) for each rank], one after another."""
        return [fn(self.con, rank, *a) for rank, a in zip(ranks, args)]

    def close(self):
        self.con.close()
        shutil.rmtree(self._temp, ignore_errors=True)


class _Dask:
    """One task per rank on a Dask cluster: the scheduler at `scheduler`, or
    a LocalCluster of `workers` processes."""

    def __init__(self, files, ranks, scheduler, workers, memory_limit):
        try:
            import distributed
        except ImportError:
            raise ImportError("engine='dask' needs Dask's distributed scheduler: "
                              "pip install 'dask[distributed]'") from None
        self._cluster = None
        if scheduler:
            self.client = distributed.Client(scheduler)
        else:
            self._cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                                     processes=True, dashboard_address=None)
            self.client = distributed.Client(self._cluster)
        self._files = {rank: {t: [paths[i]] for t, paths in files.items() if paths}
                       for i, rank in enumerate(ranks["rank"])}
        self._memory_limit = memory_limit

    def run(self, queries):
        ranks = list(self._files)
        results = self.each_rank(_queries_of, ranks, [(queries,)] * len(ranks))
        return {name: pd.concat([r[name] for r in results], ignore_index=True)
                for name in queries}

    def each_rank(self, fn, ranks, args):
        futures = self.client.map(rank_call, [self._files[r] for r in ranks], [fn] * len(ranks),
                                  list(ranks), list(args), memory_limit=self._memory_limit,
                                  pure=False)
        return self.client.gather(futures)

    def close(self):
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()


class Dataset:
    """A job's Parquet shards. `ranks` is the table of its ranks (one row
    each: process, clock alignment, rows per table); `sql(query)` runs a
    query over the views (one per table: nodes, kernels, transfers, syncs,
    edges, mpi_calls, communicators, python_frames, threads, devices,
    diagnostics, memory, ranks), each with the columns `job` and `rank`.

    breakdown(), collectives(), imbalance() and rank_path() give the
    figures of `brickprof report --ranks/--collectives/--imbalance/
    --rank-path --json` on the job's merged trace (rank indices as a merge
    of the rank files in rank order numbers them); report(views) all of
    them in one dict keyed like report's; top_kernels(n) and top_bricks(n)
    each rank's heaviest."""

    def __init__(self, path, engine="duckdb", scheduler=None, job=None, partial=False,
                 workers=None, memory_limit=None, threads=None):
        if engine not in ("duckdb", "dask"):
            raise ValueError("engine must be 'duckdb' or 'dask', not %r" % (engine,))
        self.path = path
        self.ranks, self._files = scan(path, job, partial)
        self._memory_limit, self._threads = memory_limit, threads
        self._local = None
        if engine == "dask":
            self._engine = _Dask(self._files, self.ranks, scheduler, workers, memory_limit)
        else:
            self._local = self._engine = _DuckDB(self._files, memory_limit, threads)
        self._results = {}

    # -- querying -----------------------------------------------------------
    @property
    def connection(self):
        """The DuckDB connection with the views (made on first use with the
        Dask engine: queries run here)."""
        if self._local is None:
            self._local = _DuckDB(self._files, self._memory_limit, self._threads)
        return self._local.con

    def sql(self, query):
        """A query over the views, as a pandas DataFrame."""
        return self.connection.execute(query).df()

    def close(self):
        for engine in {id(e): e for e in (self._engine, self._local) if e}.values():
            engine.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return "<brickprof.Dataset %s: %d ranks>" % (self.path, len(self.ranks))

    # -- the cross-rank analyses ---------------------------------------------
    def _by_index(self, frame):
        index = {r: i for i, r in enumerate(self.ranks["rank"])}
        frame = frame.copy()
        frame["rank_index"] = frame["rank"].map(index).astype("int64")
        return frame

    def _phase_one(self):
        if "spans" not in self._results:
            out = self._engine.run(_queries.PHASE_ONE)
            self._results["spans"] = self._by_index(out["spans"]).set_index("rank_index")
            self._results["calls"] = self._by_index(out["calls"])
            self._results["imbalance"] = self._by_index(out["imbalance"])
            self._results["memory_peaks"] = self._by_index(out["memory_peaks"]).sort_values(
                ["rank_index", "entry"], kind="stable")
        return self._results

    def collective_calls(self):
        """The matched collectives as DataFrames (calls, instances, ops,
        per_rank): what collectives() writes out."""
        results = self._phase_one()
        if "collectives" not in results:
            results["collectives"] = _cross_rank.Collectives(results["calls"], len(self.ranks))
        return results["collectives"]

    def breakdown(self):
        """report --ranks: each rank's span split into compute, waiting,
        communication, memory and idle; overlap."""
        waits = self.collective_calls().waits()
        spans = self._results["spans"]
        with_work = [i for i in spans.index if spans.at[i, "work_items"] > 0]
        by_rank = waits.groupby("rank")
        args = []
        for i in with_work:
            w = by_rank.get_group(i) if i in by_rank.groups else waits.iloc[:0]
            args.append(((int(spans.at[i, "start_ns"]), int(spans.at[i, "end_ns"])),
                         (w["start_ns"].to_numpy(), w["end_ns"].to_numpy())))
        rows = self._engine.each_rank(_queries.sweep_rank,
                                      [int(self.ranks["rank"].iat[i]) for i in with_work], args)
        sweep = pd.DataFrame(rows, index=pd.Index(with_work, name="rank_index"))
        out = _cross_rank.breakdown(self.ranks, spans, sweep)
        out["memory"] = _cross_rank.memory_peaks(self.ranks, self._results["memory_peaks"])
        return out

    def collectives(self):
        """report --collectives: instances with skew, straggler and waits."""
        return self.collective_calls().json(self.ranks)

    def imbalance(self):
        """report --imbalance: compute per layer and brick across ranks."""
        return _cross_rank.imbalance(self.ranks, self._phase_one()["imbalance"])

    def rank_path(self):
        """report --rank-path: the critical path across ranks and what-if."""
        return _cross_rank.rank_path(self.ranks, self._phase_one()["spans"],
                                     self.collective_calls())

    def report(self, views=VIEWS):
        """{view: figures} for the views named, as `report --json` keys them."""
        compute = {"ranks": self.breakdown, "collectives": self.collectives,
                   "imbalance": self.imbalance, "rank-path": self.rank_path}
        unknown = [v for v in views if v not in compute]
        if unknown:
            raise ValueError("unknown view %s (views: %s)" % (", ".join(unknown), ", ".join(VIEWS)))
        return {v: compute[v]() for v in views}

    def _per_rank(self, sql, n):
        frame = self._by_index(self._engine.run({"q": sql})["q"])
        frame = frame.sort_values(["rank_index", "total_ns", "name"],
                                  ascending=[True, False, True], kind="stable")
        if n is not None:
            frame = frame.groupby("rank_index", sort=False).head(n)
        return frame.reset_index(drop=True)

    def top_kernels(self, n=10):
        """Each rank's n kernels with the most GPU time (name, count, total,
        min and max ns); n=None: all."""
        return self._per_rank(_queries.KERNELS, n)

    def top_bricks(self, n=10):
        """Each rank's n bricks with the most time: the figures of `report
        --summary` on that rank (count, total, min, max, avg, GPU time of
        its kernels, elements); n=None: all, in order of first appearance."""
        frame = self._by_index(self._engine.run({"q": _queries.BRICKS})["q"])
        frame["avg_ns"] = (frame["total_ns"] // frame["count"]).astype("int64")
        total = frame["total_ns"].astype("float64")
        frame["elements_per_s"] = (frame["elements"].astype("float64") * 1e9 / total).where(
            frame["total_ns"] > 0, 0.0)
        if n is None:
            frame = frame.sort_values(["rank_index", "first_id"], kind="stable")
        else:
            frame = frame.sort_values(["rank_index", "total_ns", "first_id"],
                                      ascending=[True, False, True], kind="stable")
            frame = frame.groupby("rank_index", sort=False).head(n)
        return frame.drop(columns=["first_id"]).reset_index(drop=True)


def dataset(path, engine="duckdb", scheduler=None, job=None, partial=False, workers=None,
            memory_limit=None, threads=None):
    """Opens the Parquet shards under `path` (brickprof export --parquet):
    DuckDB in this process by default; engine="dask" runs the per-rank
    queries as tasks on the Dask scheduler at `scheduler` ("tcp://host:8786")
    or, without one, a LocalCluster of `workers` processes. `job`: which job
    when the folder holds several; `partial`: accept missing ranks;
    `memory_limit` ("4GB") and `threads`: DuckDB's (it spills to a
    temporary folder beyond the limit)."""
    return Dataset(path, engine, scheduler, job, partial, workers, memory_limit, threads)
