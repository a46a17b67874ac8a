// The output prefix that BRICKPROF_OUTPUT (`run --output`) names, read as a
// user means it: "trace.json" is the prefix "trace" (a format's extension
// given is not doubled: trace.json, trace.tree.txt, ...), and a trailing "/"
// names a folder that gets the default names ("runs/" is
// "runs/brickprof-%n-%p"). The agent and `run` both read it so.
#pragma once

#include <string>
#include <string_view>

namespace brickprof {

std::string output_prefix_pattern(std::string_view given);

// The folder part of a prefix ("runs/%h" of "runs/%h/t"; "" for "t").
std::string_view output_folder(std::string_view prefix);

}  // namespace brickprof
