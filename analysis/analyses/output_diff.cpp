// Output checksums of two runs lined up and compared (see output_diff.h).
#include "analysis/analyses/output_diff.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "trace/model/format.h"
#include "trace/model/printable.h"
#include "trace/model/queries.h"

namespace brickprof {
namespace {

constexpr size_t kListed = 10;

// Each node's label with its ordinal among its parent's children of the
// same label, and its ancestry, built once per node asked for.
class PathBuilder {
 public:
  explicit PathBuilder(const Trace& t)
      : t_(t), index_(t), path_(t.nodes.size()), plain_(t.nodes.size()), done_(t.nodes.size()) {
    name_threads();
  }

  const std::string& path(uint32_t node) {
    build(node);
    return path_[node];
  }
  const std::string& plain(uint32_t node) {
    build(node);
    return plain_[node];
  }

 private:
  std::string label(uint32_t node) const {
    const Node& n = t_.nodes[node];
    std::string text = node_label(t_, n);
    const GpuDetail* d = t_.detail(n);
    if (n.parent == kNoNode && d && d->python_stack < t_.python_stacks.size() &&
        !t_.python_stacks[d->python_stack].empty()) {
      const PythonFrame& f = t_.python_frames[t_.python_stacks[d->python_stack].front()];
      text = f.file + ":" + std::to_string(f.line) + " > " + text;
    }
    if (n.parent == kNoNode && !thread_keys_.empty()) {
      auto it = thread_keys_.find(n.thread);
      text = (it == thread_keys_.end() ? std::string("thread ?") : it->second) + " > " + text;
    }
    return text;
  }

  // Where outputs come from the top-level work of several threads, whose
  // launches interleave differently from run to run, each thread's roots
  // are numbered on their own: a root's label starts with its thread, by
  // name where the name is the only one of its kind, else by the order of
  // the threads' first roots ("thread #1"). One thread: no key at all.
  void name_threads() {
    std::unordered_map<uint32_t, int64_t> first_root;  // thread -> its first root's start
    for (const OutputChecksum& c : t_.checksums) {
      uint32_t at = c.node;
      if (at >= t_.nodes.size()) continue;
      for (uint32_t up = t_.nodes[at].parent; up != kNoNode; up = t_.nodes[up].parent) at = up;
      first_root.emplace(t_.nodes[at].thread, INT64_MAX);
    }
    if (first_root.size() < 2) return;
    for (uint32_t r : index_.roots()) {
      auto it = first_root.find(t_.nodes[r].thread);
      if (it != first_root.end()) it->second = std::min(it->second, t_.nodes[r].start_ns);
    }
    std::vector<std::pair<int64_t, uint32_t>> order;
    for (const auto& [tid, start] : first_root) order.emplace_back(start, tid);
    std::sort(order.begin(), order.end());
    std::unordered_map<std::string_view, uint32_t> names;
    std::unordered_map<uint32_t, std::string_view> name_of;
    for (const ThreadInfo& th : t_.threads)
      if (first_root.count(th.tid) && !th.name.empty() && name_of.emplace(th.tid, th.name).second)
        ++names[th.name];
    for (size_t k = 0; k < order.size(); ++k) {
      const uint32_t tid = order[k].second;
      auto named = name_of.find(tid);
      thread_keys_[tid] = named != name_of.end() && names[named->second] == 1
                              ? "thread " + std::string(named->second)
                              : "thread #" + std::to_string(k);
    }
  }

  // Ordinals of every child of `parent` (its siblings' labels counted once).
  void number_children(uint32_t parent) {
    std::span<const uint32_t> kids = parent == kNoNode ? index_.roots() : index_.children(parent);
    std::unordered_map<std::string, uint32_t> seen;
    for (uint32_t k : kids) {
      std::string l = label(k);
      const uint32_t ordinal = seen[l]++;
      ordinal_[k] = {std::move(l), ordinal};
    }
  }

  void build(uint32_t node) {
    // Iterative: ancestry can be deep.
    std::vector<uint32_t> chain;
    for (uint32_t at = node; at != kNoNode && !done_[at]; at = t_.nodes[at].parent) chain.push_back(at);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const uint32_t at = *it;
      if (!ordinal_.count(at)) number_children(t_.nodes[at].parent);
      const auto& [l, ordinal] = ordinal_[at];
      const uint32_t parent = t_.nodes[at].parent;
      const std::string step = l + " #" + std::to_string(ordinal);
      path_[at] = parent == kNoNode ? step : path_[parent] + " / " + step;
      plain_[at] = parent == kNoNode ? l : plain_[parent] + " / " + l;
      done_[at] = true;
    }
  }

  const Trace& t_;
  ChildIndex index_;
  std::vector<std::string> path_, plain_;
  std::vector<bool> done_;
  std::unordered_map<uint32_t, std::pair<std::string, uint32_t>> ordinal_;
  std::unordered_map<uint32_t, std::string> thread_keys_;  // tid -> its key; empty: one thread
};

double distance(const Digest& a, const Digest& b) {
  if (a.fnv1a == b.fnv1a && a.count == b.count) return 0;
  double squares = 0;
  for (size_t k = 0; k < kProjections; ++k) {
    const double d = a.projections[k] - b.projections[k];
    squares += d * d;
  }
  double estimate = std::sqrt(squares / kProjections);
  estimate = std::max(estimate, std::fabs(a.l2 - b.l2));
  if (a.count > 0) estimate = std::max(estimate, std::fabs(a.sum - b.sum) / std::sqrt(double(a.count)));
  return estimate;
}

OutputComparison compare(const OutputAt& a, const OutputAt& b, const OutputTolerance& tol) {
  OutputComparison c;
  const Digest &x = a.checksum->digest, &y = b.checksum->digest;
  c.identical = x.fnv1a == y.fnv1a && x.count == y.count;
  c.other_code = a.ptx_hash != b.ptx_hash;
  if (x.count != y.count) {
    c.beyond = true;
    c.why = std::to_string(x.count) + " elements, then " + std::to_string(y.count);
    return c;
  }
  if (x.nan != y.nan || x.inf != y.inf) {
    c.beyond = true;
    c.why = "NaN/Inf " + std::to_string(x.nan) + "/" + std::to_string(x.inf) + ", then " +
            std::to_string(y.nan) + "/" + std::to_string(y.inf);
  }
  c.distance = distance(x, y);
  c.rel = x.l2 > 0 ? c.distance / x.l2 : (c.distance > 0 ? INFINITY : 0);
  c.rms = x.count ? c.distance / std::sqrt(double(x.count)) : 0;
  if (x.l2 > 0 && y.l2 > 0)
    c.cosine = std::clamp((x.l2 * x.l2 + y.l2 * y.l2 - c.distance * c.distance) / (2 * x.l2 * y.l2), -1.0, 1.0);
  const double eps = element_epsilon(a.checksum->type);
  c.ulp = eps > 0 ? c.rel / eps : 0;
  const double relative = tol.ulp && eps > 0 ? *tol.ulp * eps : tol.rtol;
  const double bound = tol.atol * std::sqrt(double(x.count)) + relative * x.l2;
  if (c.distance > bound) c.beyond = true;
  return c;
}

// Three significant digits: distances span many orders of magnitude.
std::string sci(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

}  // namespace

std::vector<OutputAt> outputs_in_order(const Trace& trace) {
  std::vector<size_t> order(trace.checksums.size());
  std::iota(order.begin(), order.end(), 0);
  auto start = [&](size_t i) {
    const uint32_t n = trace.checksums[i].node;
    return n < trace.nodes.size() ? trace.nodes[n].start_ns : INT64_MAX;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (start(a) != start(b)) return start(a) < start(b);
    return trace.checksums[a].node < trace.checksums[b].node;
  });
  PathBuilder paths(trace);
  std::vector<OutputAt> out;
  std::unordered_map<std::string, uint32_t> repeats;  // one node's outputs of one name
  for (size_t i : order) {
    const OutputChecksum& c = trace.checksums[i];
    if (c.node >= trace.nodes.size()) continue;
    OutputAt o;
    o.checksum = &c;
    std::string key = paths.path(c.node) + " : " + std::string(trace.strings.view(c.name));
    o.path = key + " #" + std::to_string(repeats[key]++);
    o.launched = paths.plain(c.node);
    if (const GpuDetail* d = trace.detail(trace.nodes[c.node])) o.ptx_hash = d->ptx_hash;
    out.push_back(std::move(o));
  }
  return out;
}

const OutputComparison* OutputDiff::first_beyond() const {
  for (const OutputComparison& c : compared)
    if (c.beyond) return &c;
  return nullptr;
}

const OutputComparison* OutputDiff::first_changed() const {
  for (const OutputComparison& c : compared)
    if (!c.identical) return &c;
  return nullptr;
}

OutputDiff diff_outputs(const Trace& base, const Trace& next, const OutputTolerance& tolerance) {
  OutputDiff d;
  d.tolerance = tolerance;
  d.base = outputs_in_order(base);
  d.next = outputs_in_order(next);
  std::unordered_map<std::string_view, size_t> in_next;
  for (size_t j = 0; j < d.next.size(); ++j) in_next.emplace(d.next[j].path, j);
  std::vector<bool> matched(d.next.size(), false);
  for (size_t i = 0; i < d.base.size(); ++i) {
    auto it = in_next.find(d.base[i].path);
    if (it == in_next.end()) {
      d.only_base.push_back(i);
      continue;
    }
    matched[it->second] = true;
    OutputComparison c = compare(d.base[i], d.next[it->second], tolerance);
    c.base = i;
    c.next = it->second;
    d.identical += c.identical;
    d.beyond += c.beyond;
    d.within += !c.identical && !c.beyond;
    d.compared.push_back(std::move(c));
  }
  for (size_t j = 0; j < d.next.size(); ++j)
    if (!matched[j]) d.only_next.push_back(j);
  return d;
}

std::string output_diff_verdict(const OutputDiff& d) {
  if (d.compared.empty()) return "FAIL: no output is in both runs";
  if (d.failed())
    return "FAIL: " + std::to_string(d.beyond) + " of " + std::to_string(d.compared.size()) +
           " outputs differ beyond tolerance";
  return "PASS: " + std::to_string(d.compared.size()) + " outputs within tolerance (" +
         std::to_string(d.identical) + " bit-identical)";
}

namespace {

// How far one output moved, in the figures of output_diff.h.
void describe(const OutputDiff& d, const OutputComparison& c, std::ostream& out) {
  const Digest &x = d.base[c.base].checksum->digest, &y = d.next[c.next].checksum->digest;
  out << "    rel " << sci(c.rel) << "  cos " << format_fixed(c.cosine, 6) << "  rms "
      << sci(c.rms);
  if (c.ulp > 0) out << "  (" << sci(c.ulp) << " ulp of " << to_string(d.base[c.base].checksum->type) << ")";
  out << "\n    sum " << sci(x.sum) << " -> " << sci(y.sum) << "  min "
      << sci(x.min) << " -> " << sci(y.min) << "  max " << sci(x.max)
      << " -> " << sci(y.max) << "\n";
  if (!c.why.empty()) out << "    " << c.why << "\n";
  out << "    " << (c.identical ? "bit-identical" : "not bit-identical");
  if (c.other_code) out << "; the kernel's code changed (another PTX hash)";
  out << "\n";
}

}  // namespace

void output_diff_text(const OutputDiff& d, std::ostream& out) {
  out << "Outputs: " << d.base.size() << " in BASE, " << d.next.size() << " in NEW, "
      << d.compared.size() << " lined up by execution path\n";
  out << "  " << d.identical << " bit-identical, " << d.within << " within tolerance, " << d.beyond
      << " beyond (atol " << sci(d.tolerance.atol) << ", ";
  if (d.tolerance.ulp)
    out << "ulp " << sci(*d.tolerance.ulp) << ")\n";
  else
    out << "rtol " << sci(d.tolerance.rtol) << ")\n";
  if (const OutputComparison* first = d.first_beyond()) {
    const OutputAt& o = d.base[first->base];
    out << "\nFirst divergence: " << printable(o.path) << "\n";
    out << "    launched under " << printable(o.launched) << "\n";
    describe(d, *first, out);
    std::vector<const OutputComparison*> after;
    for (const OutputComparison& c : d.compared)
      if (c.beyond && &c != first && c.base > first->base) after.push_back(&c);
    if (!after.empty()) {
      out << "  After it, " << after.size() << " more beyond tolerance:\n";
      for (size_t i = 0; i < after.size() && i < kListed; ++i)
        out << "    " << printable(d.base[after[i]->base].path) << "  rel " << sci(after[i]->rel) << "\n";
      if (after.size() > kListed) out << "    ... " << after.size() - kListed << " more (--json lists all)\n";
    }
  } else if (const OutputComparison* changed = d.first_changed()) {
    out << "\nFirst output not bit-identical (within tolerance): " << printable(d.base[changed->base].path) << "\n";
    describe(d, *changed, out);
  } else if (!d.compared.empty()) {
    out << "\nEvery output lined up is bit-identical: deterministic.\n";
  }
  auto list_only = [&](const char* which, const std::vector<size_t>& idx, const std::vector<OutputAt>& outs) {
    if (idx.empty()) return;
    out << "\nOnly in " << which << ": " << idx.size() << " (paths that differ; lined up past them)\n";
    for (size_t i = 0; i < idx.size() && i < kListed; ++i) out << "    " << printable(outs[idx[i]].path) << "\n";
    if (idx.size() > kListed) out << "    ... " << idx.size() - kListed << " more\n";
  };
  list_only("BASE", d.only_base, d.base);
  list_only("NEW", d.only_next, d.next);
  out << "\n" << output_diff_verdict(d) << "\n";
}

void output_diff_json(const OutputDiff& d, JsonWriter& w) {
  w.begin_object();
  w.field("verdict", d.failed() || d.compared.empty() ? "fail" : "pass");
  w.field("verdict_text", output_diff_verdict(d));
  w.field("atol", d.tolerance.atol).field("rtol", d.tolerance.rtol);
  if (d.tolerance.ulp) w.field("ulp", *d.tolerance.ulp);
  w.field("base_outputs", d.base.size()).field("new_outputs", d.next.size());
  w.field("identical", d.identical).field("within", d.within).field("beyond", d.beyond);
  w.key("compared").begin_array();
  for (const OutputComparison& c : d.compared) {
    w.newline().begin_object();
    w.field("path", d.base[c.base].path).field("launched", d.base[c.base].launched);
    w.field("identical", c.identical).field("beyond", c.beyond);
    w.field("distance", c.distance).field("rel", c.rel).field("cosine", c.cosine);
    w.field("rms", c.rms).field("ulp", c.ulp);
    if (c.other_code) w.field("other_code", true);
    if (!c.why.empty()) w.field("why", c.why);
    w.end_object();
  }
  w.end_array();
  auto only = [&](const char* key, const std::vector<size_t>& idx, const std::vector<OutputAt>& outs) {
    w.key(key).begin_array();
    for (size_t i : idx) w.value(outs[i].path);
    w.end_array();
  };
  only("only_base", d.only_base, d.base);
  only("only_new", d.only_next, d.next);
  w.end_object().newline();
}

}  // namespace brickprof
