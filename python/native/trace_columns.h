// A trace as columns for pandas: each numeric column the raw bytes of one
// array (numpy reads them without a copy), each text column codes into a
// list of its distinct values (a pandas Categorical), built in C++ from the
// same model every brickprof command reads.
#pragma once

#include <Python.h>

#include "trace/model/trace.h"

namespace brickprof::python {

// A dict: {"nodes": {...}, "gpu": {...}, "edges": {...}, "bricks": [...],
// "devices": [...], "threads": [...], "process": {...}, "diagnostics": {...}}.
// A column is (bytes, numpy dtype) or (codes bytes, dtype, [values]).
// Returns nullptr with a Python exception set on failure.
PyObject* trace_columns(const Trace& trace);

}  // namespace brickprof::python
