// Reads the trace a command was given, and when that fails because the file
// is another of brickprof's outputs (the Chrome trace, the tree, DOT,
// folded stacks, Perfetto) says so and names the trace beside it.
#pragma once

#include <string>

#include "trace/json/trace_json.h"

namespace brickprof::cli {

// read_trace_file, whose TraceError then names what was given and where the
// trace is: "t.trace.json: ...: this is the Chrome trace brickprof wrote for
// Perfetto; the trace is t.json".
Trace read_trace_input(const std::string& path, const ReadProgress& progress = {});

// Whether the file is an MPI job's summary (<prefix>-job.json, schema
// brickprof-job/1) rather than a trace: report and view show it as such.
bool is_job_summary_file(const std::string& path);

}  // namespace brickprof::cli
