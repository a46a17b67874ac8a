// A rank's trace as the tables of its Parquet shard (brickprof export,
// python/brickprof/_shards.py): brickprof.load's columns on the job's one
// timeline (the times moved onto rank 0's clock as `merge` moves them), and
// what the cross-rank analyses read of each node, computed by the code the
// report runs: its work class on its rank's timeline (rank_work.h), its
// nearest layer and brick; the MPI calls and communicators; the Python
// stacks of GPU launches; the memory events.
#pragma once

#include <Python.h>

#include "trace/model/trace.h"

namespace brickprof::python {

// trace_columns(trace) plus, in "nodes": work, layer, in_layer, brick_name;
// in "gpu": python_stack; and "comm_calls", "communicators",
// "python_frames", "memory" (its events), "memory_peaks" (the ranks view's
// memory rows for this rank), "merge_devices" (how many device ids merge
// gives it), "alignment", "merged" (a merge of several processes) and
// "gpu_timeline". Moves the trace's times in place. nullptr with a Python
// exception set on failure.
PyObject* shard_columns(Trace& trace);

// [(name, collective, wait pattern)] of every MPI operation the trace
// model knows, in its order (trace/model/comm.h).
PyObject* comm_op_rows();

// memory_label((account, device, pool, rank label or None)): a memory
// account as every output names it (memory_accounts.h: account_label), in a
// merged trace when a rank label is given ("rank 1: GPU 1 device memory").
PyObject* memory_label(PyObject* args);

}  // namespace brickprof::python
