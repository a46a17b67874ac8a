"""The per-rank half of the cross-rank analyses, as SQL over a job's shards.

Each query reads the views `nodes` and `mpi_calls` (and `waits`, the
breakdown's) and groups by `rank`, so the same text runs over every rank
at once (DuckDB over the whole dataset) or over one rank's files (a Dask
task on the worker where they lie). What they compute follows the report's
C++ (analysis/analyses/): the comments name the function each mirrors.
The cross-rank half, over what these return, is _cross_rank.py.
"""

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

# rank_breakdown's sweep: the rank's work items and its waits inside
# collectives (`waits`: rank, start_ns, end_ns), clamped to the span of its
# work; at each distinct moment the count of each class still open; each
# piece up to the next moment is compute if anything computes, else
# waiting, else communication, else memory, else idle, and overlap is
# compute while communicating or waiting. The span's start is a moment of
# its own, so the time before the first item is idle, as the sweep counts.
BREAKDOWN = """
WITH span AS (
  SELECT rank, min(start_ns) AS s0, max(end_ns) AS e0
  FROM nodes WHERE work <> 'none' GROUP BY rank
), items AS (
  SELECT rank, start_ns AS s, end_ns AS e, work AS cls
  FROM nodes WHERE work <> 'none' AND end_ns > start_ns
  UNION ALL
  SELECT rank, start_ns, end_ns, 'waiting' FROM waits WHERE end_ns > start_ns
), clamped AS (
  SELECT rank, cls, greatest(least(s, e0), s0) AS s, greatest(least(e, e0), s0) AS e
  FROM items JOIN span USING (rank)
), moments AS (
  SELECT rank, s AS moment, cls, 1 AS d FROM clamped
  UNION ALL SELECT rank, e, cls, -1 FROM clamped
  UNION ALL SELECT rank, s0, 'none', 0 FROM span
), steps AS (
  SELECT rank, moment,
    coalesce(sum(d) FILTER (WHERE cls = 'compute'), 0) AS dc,
    coalesce(sum(d) FILTER (WHERE cls = 'waiting'), 0) AS dw,
    coalesce(sum(d) FILTER (WHERE cls = 'communication'), 0) AS dm,
    coalesce(sum(d) FILTER (WHERE cls = 'memory'), 0) AS dmem
  FROM moments GROUP BY rank, moment
), open AS (
  SELECT rank, lead(moment) OVER (PARTITION BY rank ORDER BY moment) - moment AS piece,
    sum(dc) OVER w AS c, sum(dw) OVER w AS w, sum(dm) OVER w AS m, sum(dmem) OVER w AS mem
  FROM steps
  WINDOW w AS (PARTITION BY rank ORDER BY moment ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
SELECT rank,
  coalesce(sum(piece) FILTER (WHERE c > 0), 0)::BIGINT AS compute_ns,
  coalesce(sum(piece) FILTER (WHERE c = 0 AND w > 0), 0)::BIGINT AS waiting_ns,
  coalesce(sum(piece) FILTER (WHERE c = 0 AND w = 0 AND m > 0), 0)::BIGINT AS communication_ns,
  coalesce(sum(piece) FILTER (WHERE c = 0 AND w = 0 AND m = 0 AND mem > 0), 0)::BIGINT
    AS memory_ns,
  coalesce(sum(piece) FILTER (WHERE c = 0 AND w = 0 AND m = 0 AND mem = 0), 0)::BIGINT
    AS idle_ns,
  coalesce(sum(piece) FILTER (WHERE c > 0 AND (m > 0 OR w > 0)), 0)::BIGINT AS overlap_ns
FROM open WHERE piece IS NOT NULL GROUP BY rank
"""

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

PHASE_ONE = {"spans": SPANS, "calls": COLLECTIVE_CALLS, "imbalance": IMBALANCE}
