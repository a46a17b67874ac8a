// Traces and file helpers shared by the trace and analysis tests.
#pragma once

#include <string>

#include "tests/support/read_file.h"
#include "trace/model/trace.h"

namespace brickprof::test {

// Path of a fixture under tests/data/.
std::string data_path(const std::string& name);

// tests/data/tree_small.json, parsed.
Trace small_trace();

// A trace that sets every field the JSON format carries, for round trips.
Trace full_trace();

// Two threads, each with a layer holding `bricks` distinct custom bricks.
Trace two_thread_trace(int bricks);

}  // namespace brickprof::test
