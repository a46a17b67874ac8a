// The `report --what-if NAME=K` view: for each spec, how much shorter the
// critical path gets when NAME runs K times faster, all on one dependency
// graph.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "analysis/analyses/closest_names.h"
#include "analysis/analyses/critical_path.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

using WhatIfResults = std::vector<WhatIf>;

void add_spec(std::string_view value, ViewSettings& settings) {
  settings.what_if.push_back(parse_what_if_spec(value));
}

// A name no node has is bad input (ViewError), with the names that come
// closest: a typo must not pass for "no saving".
void check_names(const Trace& t, const ViewSettings& settings) {
  if (settings.what_if.empty()) return;
  std::vector<uint8_t> used(t.strings.size(), 0);
  for (const Node& n : t.nodes)
    if (n.name < used.size()) used[n.name] = 1;
  std::vector<std::string_view> names;  // the nodes' names, each once
  for (StringId s = 1; s < used.size(); ++s)
    if (used[s]) names.push_back(t.strings.view(s));
  for (const WhatIfSpec& spec : settings.what_if)
    if (std::find(names.begin(), names.end(), spec.name) == names.end())
      throw ViewError("no brick, scope or kernel named '" + spec.name + "' (--what-if)" +
                      closest_names_note(names, spec.name));
}

WhatIfResults compute(const Trace& t, const ViewSettings& settings) {
  check_names(t, settings);
  const DependencyGraph graph = build_dependency_graph(t);
  WhatIfResults results;
  for (const WhatIfSpec& spec : settings.what_if)
    results.push_back(what_if(t, graph, spec.name, spec.factor));
  return results;
}

double saved_pct(const WhatIf& r) {
  return r.before_ns ? 100.0 * static_cast<double>(r.saved_ns()) / static_cast<double>(r.before_ns)
                     : 0;
}

void text(const Trace&, const WhatIfResults& results, std::ostream& out) {
  for (const WhatIf& r : results) {
    if (r.matched_activities == 0) {
      out << "What-if: no brick, scope or kernel named '" << r.target << "' in the trace\n";
      continue;
    }
    out << "What-if: " << printable(r.target) << ' '
        << format_fixed(r.factor, r.factor == std::floor(r.factor) ? 0 : 2)
        << "x faster shortens the run by " << format_duration(r.saved_ns()) << " ("
        << format_fixed(saved_pct(r), 1) << "%): " << format_duration(r.before_ns) << " -> "
        << format_duration(r.after_ns) << '\n';
  }
}

// An array with one result per spec.
void json(const Trace&, const WhatIfResults& results, JsonWriter& w) {
  w.begin_array();
  for (const WhatIf& r : results) {
    w.begin_object().field("target", r.target).field("factor", r.factor);
    w.field("matched_activities", static_cast<uint64_t>(r.matched_activities));
    w.field("before_ns", r.before_ns).field("after_ns", r.after_ns);
    w.field("saved_ns", r.saved_ns()).field("saved_pct", saved_pct(r)).end_object().newline();
  }
  w.end_array();
}

constexpr View what_if_view() {
  View v = make_view<compute, text, json>(
      "what-if",
      "NAME=K: how much shorter the critical path gets if brick, scope or kernel NAME ran K "
      "times faster (repeatable; a NAME the trace does not have is exit 2)",
      false);
  v.value_name = "NAME=K";
  v.add_value = &add_spec;
  return v;
}

}  // namespace

WhatIfSpec parse_what_if_spec(std::string_view spec) {
  size_t eq = spec.rfind('=');
  if (eq == std::string_view::npos || eq == 0)
    throw ViewError("--what-if expects NAME=K (e.g. RmsNorm=2), got '" + std::string(spec) + "'");
  std::string_view name = spec.substr(0, eq), k = spec.substr(eq + 1);
  if (!k.empty() && (k.back() == 'x' || k.back() == 'X')) k.remove_suffix(1);
  double factor = 0;
  auto [ptr, ec] = std::from_chars(k.data(), k.data() + k.size(), factor);
  if (ec != std::errc() || ptr != k.data() + k.size() || !(factor > 0) || !std::isfinite(factor))
    throw ViewError("--what-if " + std::string(spec) + ": K must be a positive number");
  return {std::string(name), factor};
}

extern constinit const View kWhatIfView = what_if_view();

}  // namespace brickprof
