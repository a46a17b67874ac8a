// How a device's peaks say where they came from (Device::peaks_source): the
// agent labels what it queried, the roofline and transfer views what they
// compare against, in the same words.
#pragma once

#include <string>
#include <string_view>

namespace brickprof {

// The label of two figures' sources: the one source when they agree, else
// "FLOP/s <flops_source>; bandwidth <bandwidth_source>".
std::string peaks_source_label(std::string_view flops_source, std::string_view bandwidth_source);

}  // namespace brickprof
