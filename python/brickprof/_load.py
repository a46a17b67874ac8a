"""brickprof.load(path): a trace as pandas DataFrames.

The file is read by the same C++ reader as every brickprof command (plain
JSON or .json.gz, told by its magic bytes) into columns, which become
DataFrames without a pass over the rows in Python. The columns are
documented in python/README.md.
"""
import numpy as np
import pandas as pd

from . import _native

TraceError = _native.TraceError


def _frame(columns, index=None):
    data = {}
    for name, col in columns.items():
        values = np.frombuffer(col[0], dtype=col[1])
        if len(col) == 3:  # codes into a list of values
            data[name] = pd.Categorical.from_codes(values.astype(np.int32, copy=False), col[2])
        else:
            data[name] = values
    return pd.DataFrame(data, index=index)


class Trace:
    """One trace. DataFrames (times in ns, on the trace's CLOCK_MONOTONIC):

    nodes        every node (scopes, layers, bricks, GPU operations), indexed by id
    kernels      GPU kernels: launch (API call) and GPU times, shapes
    transfers    GPU copies and memsets
    gpu          every GPU operation (kernels, transfers, memsets, syncs)
    bricks       per-brick totals, the figures of `brickprof report --summary`
    edges        the execution graph's edges
    devices      GPUs and the host, with their peaks
    threads      thread names
    diagnostics  the recorder's counters and status lines (name, value)

    and `process` (a dict) and `warnings` (a list).
    """

    def __init__(self, columns):
        nodes = _frame(columns["nodes"])
        nodes.index.name = "id"
        nodes.insert(list(nodes.columns).index("end_ns") + 1, "duration_ns",
                     nodes["end_ns"] - nodes["start_ns"])
        self.nodes = nodes

        gpu = _frame(columns["gpu"])
        node = gpu["node"].to_numpy()
        for name in ("kind", "name", "path", "start_ns", "end_ns", "duration_ns", "thread",
                     "parent", "brick"):
            gpu.insert(len(gpu.columns), name, nodes[name].array.take(node))
        gpu["launch_ns"] = (gpu["api_end_ns"] - gpu["api_start_ns"]).where(gpu["api_start_ns"] > 0)
        gpu["delay_ns"] = (gpu["start_ns"] - gpu["api_start_ns"]).where(gpu["api_start_ns"] > 0)
        gpu = gpu.set_index("node")
        self.gpu = gpu
        self.kernels = gpu[gpu["kind"] == "kernel"]
        self.transfers = gpu[gpu["kind"].isin(["transfer", "memset"])]

        self.edges = _frame(columns["edges"])
        self.bricks = pd.DataFrame(columns["bricks"], columns=[
            "name", "category", "count", "total_ns", "avg_ns", "min_ns", "max_ns", "gpu_ns",
            "kernels", "elements", "elements_per_s"])
        self.devices = pd.DataFrame(columns["devices"], columns=[
            "id", "name", "sm_count", "clock_mhz", "memory_clock_mhz", "memory_bus_bits",
            "peak_gflops", "peak_gbps", "peaks_source"])
        self.threads = pd.DataFrame(columns["threads"], columns=["tid", "name"])
        diagnostics = dict(columns["diagnostics"])
        self.warnings = diagnostics.pop("warnings")
        self.diagnostics = pd.DataFrame(list(diagnostics.items()), columns=["name", "value"])
        self.process = columns["process"]

    def __repr__(self):
        p = self.process
        return "<brickprof.Trace %s (pid %s): %d nodes, %d kernels, %d bricks>" % (
            p["program"] or "?", p["pid"], len(self.nodes), len(self.kernels), len(self.bricks))


def load(path):
    """Reads a brickprof trace (.json or .json.gz); raises TraceError (a
    ValueError naming the file and the problem) for a file that is not one."""
    return Trace(_native.read_trace(path))
