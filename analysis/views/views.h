// The report views, one registry: each view computes a model (a plain struct
// of figures, no text) from a trace and the settings, and renders that model
// as text or JSON. `brickprof report` loops over report_views(); another
// front end renders the same models (std::any_cast<Roofline>(model), ...).
// A view lives in analysis/views/view_<name>.cpp and is one line of the registry
// (analysis/views/views.cpp); analysis/README.md walks through adding one.
#pragma once

#include <any>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/analyses/machine_peaks.h"
#include "trace/json/json_writer.h"
#include "trace/model/trace.h"

namespace brickprof {

// Thrown for a bad view argument (e.g. "--what-if X" without "=K").
class ViewError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A parsed "--what-if NAME=K": NAME made K times faster.
struct WhatIfSpec {
  std::string name;
  double factor = 1;
};
// Parses "NAME=K" (K > 0, "2" or "2x"); throws ViewError otherwise, so a
// caller can reject a bad spec before reading any trace.
WhatIfSpec parse_what_if_spec(std::string_view spec);

// What the command line says beyond which views: the same for every view,
// so every compute function keeps one signature. A new option that views
// read is a field here.
struct ViewSettings {
  PeakOverrides peaks;              // --peak-gflops, --peak-gbps, --link-gbps
  std::vector<WhatIfSpec> what_if;  // --what-if NAME=K, in command-line order
  bool whole_trace = true;          // false under --under NAME: the views see a part of the run
};

// A view's model, whatever its type (each view names it in its file).
using ViewModel = std::any;

struct View {
  const char* name = nullptr;  // the flag: "tree" -> --tree; also the view's --json key
  const char* help = nullptr;
  bool by_default = false;  // shown when no view is chosen
  // A view chosen by an option that takes values (--what-if NAME=K,
  // repeatable) instead of a switch: the values' name in the help, and how
  // one value enters the settings (throws ViewError when it is malformed).
  const char* value_name = nullptr;
  void (*add_value)(std::string_view value, ViewSettings& settings) = nullptr;
  // The model, and its renderers; json is nullptr when the view has none.
  ViewModel (*compute)(const Trace& trace, const ViewSettings& settings) = nullptr;
  void (*text)(const Trace& trace, const ViewModel& model, std::ostream& out) = nullptr;
  void (*json)(const Trace& trace, const ViewModel& model, JsonWriter& out) = nullptr;
  // A file format instead (trace/output/formats.h's format of that name: "dot",
  // "chrome", "folded"): no model, no JSON form.
  const char* format = nullptr;

  bool has_json() const { return json != nullptr; }
};

// Every view, in the order `report` prints them.
const std::vector<const View*>& report_views();
// The view with that name, or nullptr.
const View* find_view(std::string_view name);

// The view's model (empty for a file format). Throws what the analysis
// throws (GraphError on a dependency cycle).
ViewModel compute_view(const View& view, const Trace& trace, const ViewSettings& settings);
// Renders a model computed by compute_view: text, or one JSON value.
void render_view(const View& view, const Trace& trace, const ViewModel& model, bool json,
                 std::ostream& out);

// A registry entry from one view's typed functions:
//   Model compute(const Trace&, const ViewSettings&);
//   void text(const Trace&, const Model&, std::ostream&);
//   void json(const Trace&, const Model&, JsonWriter&);  // or nullptr
template <auto compute, auto text, auto json>
constexpr View make_view(const char* name, const char* help, bool by_default) {
  using Model =
      decltype(compute(std::declval<const Trace&>(), std::declval<const ViewSettings&>()));
  View v;
  v.name = name;
  v.help = help;
  v.by_default = by_default;
  v.compute = [](const Trace& t, const ViewSettings& s) { return ViewModel(compute(t, s)); };
  v.text = [](const Trace& t, const ViewModel& m, std::ostream& out) {
    text(t, std::any_cast<const Model&>(m), out);
  };
  if constexpr (json != nullptr) {
    v.json = [](const Trace& t, const ViewModel& m, JsonWriter& out) {
      json(t, std::any_cast<const Model&>(m), out);
    };
  }
  return v;
}

}  // namespace brickprof
