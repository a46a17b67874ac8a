// The report's critical path across ranks (analysis/analyses/rank_path.h)
// for a job held as a Parquet dataset: the dataset's queries hand over each
// rank's span and the matched collectives (python/brickprof/_cross_rank.py),
// and the same replay runs on them.
#pragma once

#include <Python.h>

namespace brickprof::python {

// rank_path(dict) -> dict shaped as `report --json --rank-path`, without
// "ranks". The dict's entries are int64/int32/uint32 arrays (any object with
// the buffer protocol): span_start, span_end (per rank index); inst_op
// (CommOp values), inst_root, inst_first, inst_count (the instances in the
// report's order: by first arrival); call_rank, call_comm_rank,
// call_arrival, call_end, call_wait (the calls, grouped as the report
// groups them: by instance in order of first sight). TypeError/ValueError
// on arrays of the wrong type or length.
PyObject* rank_path(PyObject* arrays);

}  // namespace brickprof::python
