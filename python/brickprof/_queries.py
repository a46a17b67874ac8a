"""The per-rank half of the cross-rank analyses: SQL over a job's shards,
and the breakdown's sweep over one rank's intervals.

Each query reads the views `nodes` and `mpi_calls` and groups by `rank`,
so the same text runs over every rank at once (DuckDB over the whole
dataset) or over one rank's files (a Dask task on the worker where they
lie). The sweep takes one rank at a time (a running count in time order,
which numpy does in a pass and a SQL window only slowly). What they compute
follows the report's C++ (analysis/analyses/): the comments name the
function each mirrors. The cross-rank half, over what these return, is
_cross_rank.py.
"""
import numpy as np

# A node's own time; range lanes (thread ids from 2^31) are annotations.
_RANGE_LANE = 2147483648

# rank_breakdown / rank_critical_path: each rank's first and last work item,
# its compute's span, and the span of everything off the range lanes.
SPANS = """
SELECT rank,
  count(*) FILTER (WHERE work <> 'none') AS work_items,
  min(start_ns) FILTER (WHERE work <> 'none') AS start_ns,
  max(end_ns) FILTER (WHERE work <> 'none') AS end_ns,
  count(*) FILTER (WHERE work = 'compute') AS compute_items,
  min(start_ns) FILTER (WHERE work = 'compute') AS compute_start_ns,
  max(end_ns) FILTER (WHERE work = 'compute') AS compute_end_ns,
  count(*) FILTER (WHERE thread < %(lane)d) AS chain_items,
  min(start_ns) FILTER (WHERE thread < %(lane)d) AS chain_start_ns,
  max(end_ns) FILTER (WHERE thread < %(lane)d) AS chain_end_ns
FROM nodes GROUP BY rank
""" % {"lane": _RANGE_LANE}

# analyze_collectives: the blocking and non-blocking collectives, in each
# rank's call order (the trace's: by node).
COLLECTIVE_CALLS = """
SELECT rank, node, op, pattern, seq, comm, comm_name, comm_key, comm_size, comm_rank, peer, bytes,
  start_ns AS arrival_ns, end_ns
FROM mpi_calls
WHERE collective AND seq <> 0 AND comm_key IS NOT NULL
ORDER BY rank, node
"""

# analyze_imbalance: per rank, layer and brick instances and the compute
# time under each (nearest layer by index, nearest brick by name).
IMBALANCE = """
SELECT rank, 'layer' AS what, layer_index AS layer, NULL::VARCHAR AS brick,
  count(*) AS instances, 0::BIGINT AS compute_ns
FROM nodes WHERE kind = 'layer' GROUP BY rank, layer_index
UNION ALL
SELECT rank, 'layer', in_layer, NULL, 0, sum(end_ns - start_ns)::BIGINT
FROM nodes WHERE work = 'compute' AND layer >= 0 GROUP BY rank, in_layer
UNION ALL
SELECT rank, 'brick', NULL, brick_name, count(*), 0
FROM nodes WHERE kind = 'brick' AND category <> 'Communication' GROUP BY rank, brick_name
UNION ALL
SELECT rank, 'brick', NULL, brick_name, 0, sum(end_ns - start_ns)::BIGINT
FROM nodes WHERE work = 'compute' AND brick >= 0 GROUP BY rank, brick_name
"""

# rank_breakdown's intervals of one rank: its work items that take time,
# by class (the sweep's codes: compute 0, waiting 1, communication 2,
# memory 3). Its waits come from the collectives, its span from SPANS.
RANK_ITEMS = """
SELECT start_ns, end_ns,
  CASE work WHEN 'compute' THEN 0 WHEN 'communication' THEN 2 ELSE 3 END AS cls
FROM nodes WHERE rank = ? AND work <> 'none' AND end_ns > start_ns
"""


def sweep_rank(con, rank, span, waits):
    """rank_breakdown's sweep over one rank: its items (RANK_ITEMS) and its
    waits inside collectives ((start, end) arrays), clamped to its span
    (start, end of its work). Each class's count of open intervals after
    every moment (in time order: moments that tie give pieces of no length,
    so their order does not matter); the piece up to the next moment is
    compute if anything computes, else waiting, else communication, else
    memory, else idle; overlap is compute while communicating or waiting.
    The span's start is a moment of its own: the time before the first
    item is idle, as the sweep counts it. One rank in memory at a time, as
    its own process held it."""
    items = con.execute(RANK_ITEMS, [int(rank)]).fetchnumpy()
    s0, e0 = span
    wait_start = np.clip(np.asarray(waits[0], dtype=np.int64), s0, e0)
    wait_end = np.clip(np.asarray(waits[1], dtype=np.int64), s0, e0)
    starts = np.concatenate([np.asarray(items["start_ns"], dtype=np.int64), wait_start, [s0]])
    ends = np.concatenate([np.asarray(items["end_ns"], dtype=np.int64), wait_end])
    cls = np.concatenate([np.asarray(items["cls"], dtype=np.int8),
                          np.ones(len(wait_start), dtype=np.int8)])
    moments = np.concatenate([starts, ends])
    which = np.concatenate([cls, [-1], cls])
    delta = np.concatenate([np.ones(len(cls), dtype=np.int64), [0],
                            -np.ones(len(cls), dtype=np.int64)])
    order = np.argsort(moments, kind="stable")
    moments, which, delta = moments[order], which[order], delta[order]
    piece = np.diff(moments)
    open_ = [np.cumsum(np.where(which == k, delta, 0))[:-1] > 0 for k in range(4)]
    c, w, m, mem = open_
    return {
        "compute_ns": int(piece[c].sum()),
        "waiting_ns": int(piece[~c & w].sum()),
        "communication_ns": int(piece[~c & ~w & m].sum()),
        "memory_ns": int(piece[~c & ~w & ~m & mem].sum()),
        "idle_ns": int(piece[~(c | w | m | mem)].sum()),
        "overlap_ns": int(piece[c & (m | w)].sum()),
    }


# compute_stats (report --summary's bricks), per rank: a brick's calls,
# CPU time and elements, its category that of its first node, and the GPU
# time of the kernels under it.
BRICKS = """
WITH b AS (
  SELECT rank, brick_name AS name, min(id) AS first_id, arg_min(category, id) AS category,
    count(*) AS count, sum(end_ns - start_ns)::BIGINT AS total_ns,
    min(end_ns - start_ns) AS min_ns, max(end_ns - start_ns) AS max_ns,
    sum(elements)::UBIGINT AS elements
  FROM nodes WHERE kind = 'brick' GROUP BY rank, brick_name
), k AS (
  SELECT rank, brick_name AS name, sum(end_ns - start_ns)::BIGINT AS gpu_ns, count(*) AS kernels
  FROM nodes WHERE kind = 'kernel' AND brick >= 0 GROUP BY rank, brick_name
)
SELECT rank, name, CASE WHEN category = 'None' THEN 'Other' ELSE category END AS category,
  count, total_ns, min_ns, max_ns, coalesce(gpu_ns, 0)::BIGINT AS gpu_ns,
  coalesce(kernels, 0) AS kernels, elements, first_id
FROM b LEFT JOIN k USING (rank, name)
"""

# Per rank, each kernel name's launches and GPU time.
KERNELS = """
SELECT rank, name, count(*) AS count, sum(end_ns - start_ns)::BIGINT AS total_ns,
  min(end_ns - start_ns) AS min_ns, max(end_ns - start_ns) AS max_ns
FROM nodes WHERE kind = 'kernel' GROUP BY rank, name
"""

# The ranks view's memory rows, each rank's as export computed them
# (memory_ranks.h), in its order.
MEMORY_PEAKS = """
SELECT rank, entry, account, device, pool, peak_bytes, peak_ns, memory_bytes
FROM memory_peaks ORDER BY rank, entry
"""

PHASE_ONE = {"spans": SPANS, "calls": COLLECTIVE_CALLS, "imbalance": IMBALANCE,
             "memory_peaks": MEMORY_PEAKS}
