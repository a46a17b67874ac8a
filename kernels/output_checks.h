// --checksums and --fault: every op's output digested inside its brick's
// scope through brickprof_checksum, so two runs (scalar against AVX2, a
// CPU against CUDA, one build against the next) can be compared brick by
// brick with `brickprof diff --outputs`; and, for tests, a fault put into
// one brick of one layer, which that comparison and `report --numerics`
// must name.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/dispatch.h"

namespace bricklayer {

enum class FaultKind : uint8_t {
  None,
  Perturb,  // every element of the brick's outputs scaled by 1 + 1e-2
  Nan,      // element 0 of each of the brick's outputs made NaN
};

struct Fault {
  FaultKind kind = FaultKind::None;
  int layer = -1;
  Brick brick = Brick::RmsNorm;
};

struct OutputChecks {
  bool checksums = false;  // --checksums
  Fault fault;             // --fault
  bool any() const { return checksums || fault.kind != FaultKind::None; }
};

// "perturb:LAYER:BRICK" or "nan:LAYER:BRICK", BRICK one of `g`'s layers'
// bricks by name ("DownProjection"); or *error says why not.
Fault parse_fault(const std::string& spec, const Graph& g, std::string* error);

// After node `n` ran, inside its brick's scope: the fault if `n` is of the
// faulted brick and layer, then its output (the rows the op wrote) digested
// under its tensor's name. Reads go through the dispatcher (on CUDA: a
// synchronising copy to the host).
void check_output(const Graph& g, const Node& n, Dispatcher& d, const Step& s,
                  const OutputChecks& checks);

}  // namespace bricklayer
