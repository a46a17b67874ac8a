// Walks a graph in topological order and dispatches one kernel per op, annotated for brickprof.
#pragma once

#include <cstdint>

#include "kernels/dispatch.h"

namespace bricklayer {

// Runs one step: begin_step, every op inside its Layer and Brick scopes,
// end_step. Returns the number of ops dispatched.
int64_t execute_graph(const Graph& g, Dispatcher& d, const Step& s);

// The busy waits of Step::layer_delay_ns so far: how many, and the time
// they took as measured (at least the delay asked for, more on a busy machine).
struct TestDelays {
  int64_t count = 0;
  int64_t total_ns = 0;
};
TestDelays test_delays();

// Dispatches one node (no scopes, no begin/end); returns 1 if it launched.
int dispatch_node(const Graph& g, const Node& n, Dispatcher& d);

}  // namespace bricklayer
