// `report --peak-gflops X --peak-gbps X --link-gbps X`: the roofline's and
// the transfers view's peaks given on the command line, for a trace whose
// peaks were not measured or to measure against a datasheet figure. They
// become analysis/analyses/machine_peaks.h's PeakOverrides.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "analysis/analyses/machine_peaks.h"

namespace brickprof::cli {

// The options as typed, so a bad value gets our own one-line message
// instead of CLI11's conversion error; nullopt = not given.
struct PeakOptionText {
  std::optional<std::string> gflops;
  std::optional<std::string> gbps;
  std::optional<std::string> link_gbps;
};

void add_peak_options(CLI::App& command, PeakOptionText& text);

// Fills `peaks` from the options given. Returns "" or the problem with the
// first bad one ("--peak-gbps: expected a positive number of GB/s, got
// 'abc'"): every value must be a positive finite number.
std::string parse_peak_options(const PeakOptionText& text, PeakOverrides* peaks);

}  // namespace brickprof::cli
