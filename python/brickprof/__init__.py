"""brickprof for Python: traces as pandas DataFrames, and scopes for your code.

    import brickprof
    t = brickprof.load("brickprof-python3-4242.json")   # or .json.gz
    t.kernels.groupby("name")["duration_ns"].sum()

    with brickprof.layer(3), brickprof.brick("RmsNorm", 4096):
        ...

    @brickprof.scope("tokenize")
    def tokenize(text): ...

    brickprof.mem_alloc(block.data_ptr(), block.nbytes, "kv_cache")  # your allocator's view
    brickprof.export_parquet(["job-r0.json", "job-r1.json"], "job/")   # pip install brickprof[jobs]
    ds = brickprof.dataset("job/")            # DuckDB views over the shards
    ds.imbalance(); ds.sql("select rank, count(*) from kernels group by rank")

Scopes are recorded when the program runs under `brickprof run` (the agent
is then in the process) and cost next to nothing otherwise.
"""
from ._dataset import Dataset, DatasetError, dataset
from ._load import Trace, TraceError, load
from ._paths import agent_path
from ._scopes import (Brick, add_work, brick, checksum, counter, is_enabled, layer, mem_alloc,
                      mem_free, scope, set_enabled, set_shapes, tokens)
from ._shards import ShardError, export_parquet
from ._version import __version__

__all__ = [
    "Brick",
    "Dataset",
    "DatasetError",
    "ShardError",
    "Trace",
    "TraceError",
    "__version__",
    "add_work",
    "agent_path",
    "brick",
    "checksum",
    "counter",
    "dataset",
    "export_parquet",
    "is_enabled",
    "layer",
    "load",
    "mem_alloc",
    "mem_free",
    "scope",
    "set_enabled",
    "set_shapes",
    "tokens",
]
