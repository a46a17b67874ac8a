"""`python3 -m brickprof export|sql`: the commands `brickprof export` and
`brickprof sql` forward to (a problem is one line on stderr, exit 2).

    export --parquet DIR TRACE...     each rank's trace as Parquet shards under DIR
    sql DIR "QUERY"                   a query over the shards' views
    sql DIR --ranks --collectives --imbalance --rank-path [--top N] [--json]
                                      the cross-rank views, as report has them
"""
import argparse
import json
import os
import sys

from . import _version

_VIEW_FLAGS = (("ranks", "ranks"), ("collectives", "collectives"), ("imbalance", "imbalance"),
               ("rank_path", "rank-path"))


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise SystemExit(_fail("%s: %s (see %s --help)" % (self.prog, message, self.prog)))


def _fail(message):
    print("brickprof: " + " ".join(str(message).split()), file=sys.stderr)
    return 2


def _export(o):
    from . import _shards

    def said(row):
        if not o.quiet:
            print("brickprof: wrote rank %d of job %s (%d nodes) to %s" % (
                row["rank"], row["job"], row["rows_nodes"], os.path.abspath(o.parquet)),
                file=sys.stderr)

    _shards.export_parquet(o.traces, o.parquet, said)
    return 0


def _table(frame, out):
    import pandas as pd

    with pd.option_context("display.max_rows", None, "display.max_columns", None,
                           "display.width", 200):
        out.write(frame.to_string(index=False) + "\n")


def _view_text(name, figures, out):
    import pandas as pd

    labels = {r["index"]: r["label"] for r in figures.get("ranks", [])}
    out.write("%s\n" % {"ranks": "Ranks", "collectives": "Collectives", "imbalance": "Imbalance",
                        "rank-path": "Critical path across ranks"}[name])

    def with_labels(rows, key="rank"):
        frame = pd.DataFrame(rows)
        if key in frame:
            frame[key] = frame[key].map(labels)
        return frame

    if name == "ranks":
        _table(with_labels(figures["rows"]), out)
    elif name == "collectives":
        out.write("%d instances, %d incomplete\n" % (figures["instances_count"],
                                                     figures["incomplete"]))
        _table(pd.DataFrame(figures["ops"]), out)
        _table(with_labels(figures["per_rank"]), out)
    elif name == "imbalance":
        for part in ("layers", "bricks"):
            rows = [{k: v for k, v in r.items() if k not in ("compute_ns", "instances")}
                    for r in figures[part]]
            _table(with_labels(rows, "straggler"), out)
    else:
        out.write("measured %d ns, modelled %d ns, %d blocking collective calls\n" % (
            figures["measured_end_ns"] - figures["start_ns"],
            figures["modelled_end_ns"] - figures["start_ns"], figures["collectives"]))
        _table(with_labels(figures["shares"]), out)
        if figures["what_if"]:
            _table(with_labels(figures["what_if"]), out)


def _write_json(ds, views, top, out):
    """{view: figures} as report --json keys them, the collectives' calls
    written as they are formatted, not held."""
    out.write("{")
    for i, view in enumerate(views):
        out.write(("," if i else "") + json.dumps(view) + ":")
        if view == "collectives":
            ds.collective_calls().write_json(out, ds.ranks)
        else:
            json.dump(ds.report([view])[view], out, separators=(",", ":"))
    if top is not None:
        out.write(("," if views else "") + '"top":')
        json.dump({k: json.loads(v.to_json(orient="records")) for k, v in top.items()}, out,
                  separators=(",", ":"))
    out.write("}\n")


def _sql(o):
    from . import _dataset

    views = [view for flag, view in _VIEW_FLAGS if getattr(o, flag)]
    if bool(o.query) == bool(views or o.top is not None):
        return _fail("sql: give a query or views (--ranks, --collectives, --imbalance, "
                     "--rank-path, --top N), not both or neither")
    out = open(o.output, "w") if o.output else sys.stdout
    try:
        with _dataset.dataset(o.dir, engine=o.engine, scheduler=o.scheduler, job=o.job,
                              partial=o.partial, workers=o.workers,
                              memory_limit=o.memory_limit) as ds:
            if o.query:
                import duckdb

                try:
                    frame = ds.sql(o.query)
                except duckdb.Error as e:
                    return _fail("sql: %s" % str(e).splitlines()[0])
                if o.json:
                    out.write(frame.to_json(orient="records", lines=True))
                else:
                    _table(frame, out)
                return 0
            if o.top is not None:
                top = {"kernels": ds.top_kernels(o.top), "bricks": ds.top_bricks(o.top)}
            if o.json:
                _write_json(ds, views, top if o.top is not None else None, out)
                return 0
            figures = ds.report(views)
            for i, (name, view) in enumerate(figures.items()):
                if i:
                    out.write("\n")
                _view_text(name, view, out)
            if o.top is not None:
                for what, frame in top.items():
                    out.write("\nTop %s per rank\n" % what)
                    _table(frame, out)
            return 0
    finally:
        if o.output:
            out.close()


def main(argv=None):
    ap = _Parser(prog="brickprof", description="A job's traces as Parquet, and SQL over them.")
    ap.add_argument("--version", action="version", version="brickprof " + _version.__version__)
    sub = ap.add_subparsers(dest="command", parser_class=_Parser)
    ex = sub.add_parser("export", help="each rank's trace as Parquet shards",
                        description="Writes each trace (a rank of a job) as Parquet shards under "
                                    "DIR/<table>/job=<job>/rank=<rank>/, zstd-compressed, on the "
                                    "job's timeline (rank 0's clock, as merge puts it).")
    ex.add_argument("--parquet", metavar="DIR", required=True, help="the dataset's folder")
    ex.add_argument("--quiet", action="store_true", help="no line per rank written")
    ex.add_argument("traces", nargs="+", metavar="TRACE", help="rank traces (.json, .json.gz)")
    sq = sub.add_parser("sql", help="SQL over a job's shards, or its cross-rank views",
                        description="A query over the views of DIR (nodes, kernels, transfers, "
                                    "syncs, edges, mpi_calls, communicators, python_frames, "
                                    "threads, devices, diagnostics, memory, ranks; each with job "
                                    "and "
                                    "rank), or the cross-rank views of `brickprof report` "
                                    "computed over the shards.")
    sq.add_argument("dir", metavar="DIR")
    sq.add_argument("query", nargs="?", metavar="QUERY")
    for flag, view in _VIEW_FLAGS:
        sq.add_argument("--" + view, dest=flag, action="store_true",
                        help="report --%s's figures" % view)
    sq.add_argument("--top", type=int, metavar="N", help="each rank's N heaviest kernels, bricks")
    sq.add_argument("--json", action="store_true", help="JSON (views keyed as report --json)")
    sq.add_argument("-o", "--output", metavar="FILE", help="write here, not to stdout")
    sq.add_argument("--engine", choices=("duckdb", "dask"), default="duckdb",
                    help="where the per-rank queries run [default: duckdb]")
    sq.add_argument("--scheduler", metavar="ADDRESS",
                    help="a Dask scheduler (tcp://host:8786); default: a local cluster")
    sq.add_argument("--workers", type=int, metavar="N", help="the local Dask cluster's workers")
    sq.add_argument("--memory-limit", metavar="SIZE", help="DuckDB's, e.g. 4GB (spills beyond)")
    sq.add_argument("--job", help="which job, when DIR holds several")
    sq.add_argument("--partial", action="store_true", help="accept missing ranks")
    o = ap.parse_args(argv)
    if o.command is None:
        ap.print_help(sys.stderr)
        return 2
    from . import _native

    try:
        return _export(o) if o.command == "export" else _sql(o)
    except ImportError as e:
        return _fail("%s: %s" % (o.command, e))
    except (ValueError, OSError, _native.TraceError) as e:
        return _fail("%s: %s" % (o.command, e))
