// Walks a graph in topological order and dispatches one kernel per op, annotated for brickprof.
#pragma once

#include <cstdint>

#include "kernels/dispatch.h"

namespace bricklayer {

// Runs one step: begin_step, every op inside its Layer and Brick scopes,
// end_step. Returns the number of ops dispatched.
int64_t execute_graph(const Graph& g, Dispatcher& d, const Step& s);

// Dispatches one node (no scopes, no begin/end); returns 1 if it launched.
int dispatch_node(const Graph& g, const Node& n, Dispatcher& d);

}  // namespace bricklayer
