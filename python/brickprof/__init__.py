"""brickprof for Python: traces as pandas DataFrames, and scopes for your code.

    import brickprof
    t = brickprof.load("brickprof-python3-4242.json")   # or .json.gz
    t.kernels.groupby("name")["duration_ns"].sum()

    with brickprof.layer(3), brickprof.brick("RmsNorm", 4096):
        ...

    @brickprof.scope("tokenize")
    def tokenize(text): ...

Scopes are recorded when the program runs under `brickprof run` (the agent
is then in the process) and cost next to nothing otherwise.
"""
from ._load import Trace, TraceError, load
from ._paths import agent_path
from ._scopes import (Brick, add_work, brick, counter, is_enabled, layer, scope, set_enabled,
                      tokens)
from ._version import __version__

__all__ = [
    "Brick",
    "Trace",
    "TraceError",
    "__version__",
    "add_work",
    "agent_path",
    "brick",
    "counter",
    "is_enabled",
    "layer",
    "load",
    "scope",
    "set_enabled",
    "tokens",
]
