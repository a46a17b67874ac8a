"""A job's traces as Parquet: one shard per rank, written with pyarrow.

    DIR/<table>/job=<job>/rank=<rank>/<host>-<pid>.parquet

one file per table per rank (hive partitions, so DuckDB, Dask and Spark
read the job and rank from the path), zstd-compressed. Each rank's times
are on the job's one timeline: moved onto rank 0's clock exactly as
`brickprof merge` moves them, so the shards of a job give the figures of
its merged trace. The `ranks` table is written last: a shard without its
row there was cut short. The tables and columns are SCHEMA below, and
python/README.md describes each.
"""
import os
import re
import urllib.parse

import numpy as np

from . import _native

FORMAT = "brickprof-parquet/1"

# Table -> its columns, in order. The trace reader's columns keep their
# types; what a shard adds is typed here.
SCHEMA = {
    "ranks": [
        "format", "job", "rank",  # (PARTITIONS) "world_size", "local_rank", "launcher", "process_rank", "pid",
        "ppid", "host", "program", "cmdline", "clock", "start_ns", "end_ns", "aligned",
        "offset_ns", "gpu_timeline", "merge_devices", "cupti", "nvtx", "source",
    ],  # + rows_<table> for each other table
    "nodes": [
        "id", "kind", "name", "path", "parent", "thread", "start_ns", "end_ns", "category",
        "brick_id", "layer_index", "elements", "flops", "bytes_moved", "work", "brick",
        "brick_name", "layer", "in_layer",
    ],
    "kernels": [
        "node", "device", "context", "stream", "correlation", "api_start_ns", "api_end_ns",
        "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "smem", "registers",
        "ptx_hash", "graph_node", "graph_id", "python_stack",
    ],
    "transfers": [
        "node", "device", "context", "stream", "correlation", "api_start_ns", "api_end_ns",
        "bytes", "direction", "src_kind", "dst_kind", "python_stack",
    ],
    "syncs": [
        "node", "device", "context", "stream", "correlation", "api_start_ns", "api_end_ns", "sync",
        "event",
    ],
    "edges": ["src", "dst", "type"],
    "mpi_calls": [
        "node", "op", "collective", "pattern", "comm", "comm_name", "comm_key", "comm_size",
        "comm_rank", "peer", "tag", "bytes", "recv_bytes", "seq", "start_ns", "end_ns",
    ],
    "communicators": ["id", "name", "key", "size", "rank"],
    "python_frames": ["stack", "depth", "file", "line", "function"],
    "threads": ["tid", "name"],
    "devices": [
        "id", "name", "sm_count", "clock_mhz", "memory_clock_mhz", "memory_bus_bits",
        "peak_gflops", "peak_gbps", "peaks_source",
    ],
    "diagnostics": ["name", "value"],
    "memory": [
        "time_ns", "thread", "scope", "op", "source", "account", "result", "device", "address",
        "bytes", "stream", "pool", "name", "python_stack",
    ],
    "memory_peaks": [
        "entry", "account", "device", "pool", "peak_bytes", "peak_ns", "memory_bytes",
    ],
}
# Columns every table has from its files' path, not in the files.
PARTITIONS = ("job", "rank")
TABLES = tuple(SCHEMA)
DATA_TABLES = tuple(t for t in TABLES if t != "ranks")

_GPU_KINDS = {"kernels": ("kernel",), "transfers": ("transfer", "memset"), "syncs": ("sync",)}


class ShardError(ValueError):
    """A shard that cannot be written or read: the message names it."""


def _pa():
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise ImportError("brickprof's Parquet export needs pyarrow: pip install pyarrow") from None
    return pyarrow


def _arrow(pa, col):
    """One native column (trace_columns.h) as an Arrow array."""
    values = np.frombuffer(col[0], dtype=col[1])
    if len(col) == 2:
        return pa.array(values)
    codes = values.astype(np.int32, copy=False)
    indices = pa.array(codes, mask=codes < 0) if (codes < 0).any() else pa.array(codes)
    return pa.DictionaryArray.from_arrays(indices, pa.array(col[2], pa.string()))


def _rows_table(pa, rows, columns, types=None):
    types = types or {}
    data = {c: [r[c] for r in rows] for c in columns}
    return pa.table({c: pa.array(v, types.get(c)) for c, v in data.items()})


def partition_value(value):
    """A job id as a folder name: letters, digits, '.', '_' and '-' kept,
    the rest %-encoded (a hive partition's value)."""
    return urllib.parse.quote(str(value), safe="") if not re.fullmatch(r"[\w.-]+", str(value)) \
        else str(value)


def shard_name(process):
    """<host>-<pid>: the process that recorded the rank."""
    host = re.sub(r"[^\w.-]", "_", process["host"] or "host")
    return "%s-%d.parquet" % (host, process["pid"])


def _tables(pa, cols):
    """Every data table of one rank from read_shard's columns."""
    nodes_in = cols["nodes"]
    n = len(np.frombuffer(nodes_in["start_ns"][0], dtype=nodes_in["start_ns"][1]))
    arrays = {name: _arrow(pa, col) for name, col in nodes_in.items() if name != "detail"}
    arrays["id"] = pa.array(np.arange(n, dtype=np.int64))
    layer = np.frombuffer(nodes_in["layer"][0], dtype=nodes_in["layer"][1])
    in_layer = np.frombuffer(nodes_in["in_layer"][0], dtype=nodes_in["in_layer"][1])
    arrays["in_layer"] = pa.array(in_layer, mask=layer < 0)
    tables = {"nodes": pa.table({c: arrays[c] for c in SCHEMA["nodes"]})}

    gpu = {name: _arrow(pa, col) for name, col in cols["gpu"].items()}
    node_of = np.frombuffer(cols["gpu"]["node"][0], dtype=cols["gpu"]["node"][1])
    kind = arrays["kind"].to_numpy(zero_copy_only=False) if n else np.array([], dtype=object)
    gpu_kind = kind[node_of] if len(node_of) else np.array([], dtype=object)
    for table, kinds in _GPU_KINDS.items():
        rows = np.flatnonzero(np.isin(gpu_kind, kinds))
        tables[table] = pa.table({c: gpu[c].take(pa.array(rows)) for c in SCHEMA[table]})

    tables["edges"] = pa.table({c: _arrow(pa, col) for c, col in cols["edges"].items()})

    comms = cols["communicators"]
    calls = {c: _arrow(pa, col) for c, col in cols["comm_calls"].items()}
    comm = np.frombuffer(cols["comm_calls"]["comm"][0], dtype=np.uint32)
    call_node = np.frombuffer(cols["comm_calls"]["node"][0], dtype=np.int64)
    known = comm < len(comms)
    pick = np.where(known, comm, 0)

    def of_comm(field, dtype):
        values = np.array([c[field] for c in comms] or [0], dtype=dtype)[pick]
        return pa.array(values, mask=~known)

    ops = {name: (collective, pattern) for name, collective, pattern in _native.comm_ops()}
    op_names = calls["op"].to_pylist()
    start = np.frombuffer(nodes_in["start_ns"][0], dtype=np.int64)
    end = np.frombuffer(nodes_in["end_ns"][0], dtype=np.int64)
    calls.update(
        collective=pa.array([ops[o][0] for o in op_names], pa.bool_()),
        pattern=pa.array([ops[o][1] for o in op_names], pa.string()).dictionary_encode(),
        comm_key=of_comm("key", np.uint64), comm_size=of_comm("size", np.int32),
        comm_rank=of_comm("rank", np.int32),
        comm_name=pa.array([comms[c]["name"] if k else None for c, k in zip(comm, known)],
                           pa.string()).dictionary_encode(),
        start_ns=pa.array(start[call_node]), end_ns=pa.array(end[call_node]))
    tables["mpi_calls"] = pa.table({c: calls[c] for c in SCHEMA["mpi_calls"]})
    tables["communicators"] = _rows_table(pa, comms, SCHEMA["communicators"],
                                          {"id": pa.uint32(), "key": pa.uint64(),
                                           "size": pa.int32(), "rank": pa.int32()})
    tables["python_frames"] = pa.table({c: _arrow(pa, col)
                                        for c, col in cols["python_frames"].items()})
    tables["threads"] = _rows_table(pa, cols["threads"], SCHEMA["threads"],
                                    {"tid": pa.uint64(), "name": pa.string()})
    tables["devices"] = _rows_table(pa, cols["devices"], SCHEMA["devices"],
                                    {"id": pa.uint64(), "name": pa.string(),
                                     "peaks_source": pa.string(), "sm_count": pa.uint32(),
                                     "memory_bus_bits": pa.uint32()})
    diagnostics = dict(cols["diagnostics"])
    warnings = diagnostics.pop("warnings")
    rows = [{"name": k, "value": str(v)} for k, v in diagnostics.items()]
    rows += [{"name": "warning", "value": w} for w in warnings]
    tables["diagnostics"] = _rows_table(pa, rows, SCHEMA["diagnostics"],
                                        {"name": pa.string(), "value": pa.string()})
    tables["memory"] = pa.table({c: _arrow(pa, col) for c, col in cols["memory"].items()})
    peaks = [dict(row, entry=i) for i, row in enumerate(cols["memory_peaks"])]
    tables["memory_peaks"] = _rows_table(pa, peaks, SCHEMA["memory_peaks"], {
        "entry": pa.int32(), "account": pa.string(), "device": pa.int64(), "pool": pa.string(),
        "peak_bytes": pa.uint64(), "peak_ns": pa.int64(), "memory_bytes": pa.uint64()})
    return tables


def _rank_row(cols, rank, source, tables):
    p = cols["process"]
    a = cols["alignment"]
    row = {
        "format": FORMAT, "job": p["job"], "rank": rank, "world_size": p["world_size"],
        "local_rank": p["local_rank"], "launcher": p["launcher"], "process_rank": p["rank"],
        "pid": p["pid"], "ppid": p["ppid"], "host": p["host"], "program": p["program"],
        "cmdline": p["cmdline"], "clock": p["clock"], "start_ns": p["start_ns"],
        "end_ns": p["end_ns"], "aligned": a["applied"], "offset_ns": a["offset_ns"],
        "gpu_timeline": cols["gpu_timeline"], "merge_devices": cols["merge_devices"],
        "cupti": cols["diagnostics"]["cupti"],
        "nvtx": cols["diagnostics"]["nvtx"], "source": os.path.abspath(source),
    }
    for name in DATA_TABLES:
        row["rows_" + name] = tables[name].num_rows
    return row


def _write(pq, table, path):
    """Written whole or not at all: a temporary file renamed into place."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def rank_folder(out, table, job, rank):
    return os.path.join(out, table, "job=" + partition_value(job), "rank=%d" % rank)


def export_rank(trace_path, out, position=0):
    """Writes one rank's shard under `out`; returns its `ranks` row. The
    rank is the process's (`position` for a trace not run as a rank, as
    merge labels it); a second process already exported as that rank of
    that job is refused (ShardError naming both)."""
    pa = _pa()
    import pyarrow.parquet as pq

    cols = _native.read_shard(trace_path)
    if cols["merged"]:
        raise ShardError("%s: a merged trace (brickprof merge); export the ranks' own traces, "
                         "one shard each" % trace_path)
    process = cols["process"]
    rank = process["rank"] if process["rank"] >= 0 else position
    job = process["job"] or "none"
    name = shard_name(process)
    folder = rank_folder(out, "ranks", job, rank)
    if os.path.isdir(folder):
        for other in os.listdir(folder):
            if other.endswith(".parquet") and other != name:
                source = pq.read_table(os.path.join(folder, other), columns=["source"])
                raise ShardError(
                    "%s: rank %d of job %s is already in %s, from %s (%s): one shard per rank; "
                    "export into an empty folder" % (trace_path, rank, job, out,
                                                     source.column(0)[0].as_py(), other))
    tables = _tables(pa, cols)
    row = _rank_row(cols, rank, trace_path, tables)
    row["job"] = job
    for table_name, table in tables.items():
        _write(pq, table, os.path.join(rank_folder(out, table_name, job, rank), name))
    # job and rank are the path's (hive partitions), not the file's.
    ranks = pa.Table.from_pylist([{k: v for k, v in row.items() if k not in PARTITIONS}])
    _write(pq, ranks, os.path.join(folder, name))  # last: the shard is complete
    return row


def export_parquet(traces, out, progress=None):
    """Writes each trace (a rank of a job) as its shard under `out`; returns
    their `ranks` rows. A rank given twice, or already in `out` from
    another process, is a ShardError naming both. `progress(row)`, if
    given, is called after each rank."""
    os.makedirs(out, exist_ok=True)
    seen = {}
    rows = []
    for position, trace in enumerate([traces] if isinstance(traces, (str, os.PathLike))
                                     else traces):
        row = export_rank(trace, out, position)
        key = (row["job"], row["rank"])
        if key in seen and seen[key] != row["source"]:
            raise ShardError("%s: rank %d of job %s again (also in %s)" % (
                trace, row["rank"], row["job"], seen[key]))
        seen[key] = row["source"]
        rows.append(row)
        if progress:
            progress(row)
    return rows
