// The label of a device's peaks' sources (see device_peaks.h).
#include "trace/model/device_peaks.h"

namespace brickprof {

std::string peaks_source_label(std::string_view flops_source, std::string_view bandwidth_source) {
  if (flops_source == bandwidth_source) return std::string(flops_source);
  return "FLOP/s " + std::string(flops_source) + "; bandwidth " + std::string(bandwidth_source);
}

}  // namespace brickprof
