// The peak override options of `brickprof report` (see peak_options.h).
#include "tools/peak_options.h"

#include <optional>

#include "trace/model/settings.h"

namespace brickprof::cli {
namespace {

// One row per option, so the flag and unit in the help and in the error
// message cannot drift apart.
struct PeakOption {
  const char* flag;
  const char* unit;  // for the error message
  const char* help;
  std::optional<std::string> PeakOptionText::*text;
  double PeakOverrides::*value;
};

constexpr PeakOption kPeakOptions[] = {
    {"--peak-gflops", "GFLOP/s",
     "Compute roof of --roofline in GFLOP/s (1e9 FLOP/s), for GPU and CPU work alike, "
     "instead of the trace's or the default peak",
     &PeakOptionText::gflops, &PeakOverrides::gflops},
    {"--peak-gbps", "GB/s",
     "Memory-bandwidth roof of --roofline in GB/s (1e9 bytes/s), for GPU and CPU work alike, "
     "instead of the trace's or the default peak",
     &PeakOptionText::gbps, &PeakOverrides::gbps},
    {"--link-gbps", "GB/s",
     "Host<->device link bandwidth of --transfers in GB/s, instead of the default by device "
     "name",
     &PeakOptionText::link_gbps, &PeakOverrides::link_gbps},
};

}  // namespace

void add_peak_options(CLI::App& command, PeakOptionText& text) {
  for (const PeakOption& o : kPeakOptions)
    command.add_option(o.flag, text.*o.text, o.help)->type_name("X");
}

std::string parse_peak_options(const PeakOptionText& text, PeakOverrides* peaks) {
  for (const PeakOption& o : kPeakOptions) {
    const std::optional<std::string>& given = text.*o.text;
    std::optional<double> value = given ? settings::peak_value(*given) : std::nullopt;
    if (value) peaks->*o.value = *value;
    if (given && !value)
      return std::string(o.flag) + ": expected a positive number of " + o.unit + ", got '" +
             *given + "'";
  }
  return "";
}

}  // namespace brickprof::cli
