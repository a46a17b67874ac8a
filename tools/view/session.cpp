// The browser's data and cached models (see session.h).
#include "tools/view/session.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "analysis/analyses/dependency_graph.h"
#include "analysis/analyses/trace_subset.h"
#include "trace/derive/aggregate_tree.h"
#include "trace/model/queries.h"
#include "trace/model/recorded.h"

namespace brickprof::view {

Session::Session(Trace trace, std::string file, std::optional<Trace> base, std::string base_file)
    : whole_(std::move(trace)),
      file_(std::move(file)),
      base_(std::move(base)),
      base_file_(std::move(base_file)),
      run_ns_(run_span_ns(whole_)) {}

Session::~Session() {
  if (building_.valid()) building_.wait();  // it reads whole_
}

void Session::start_tree() {
  if (c_.tree || building_.valid()) return;
  // Only reads the trace, as every model computed meanwhile does.
  building_ = std::async(std::launch::async, [this] { return make_tree(); });
}

bool Session::tree_ready() const {
  return !building_.valid() ||
         building_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

bool Session::wait_tree(std::chrono::milliseconds patience) {
  return !building_.valid() || building_.wait_for(patience) == std::future_status::ready;
}

std::string Session::rank_label() const {
  return rank_ < 0 ? std::string() : whole_.sources[static_cast<size_t>(rank_)].label;
}

void Session::set_rank(int rank) {
  if (rank >= static_cast<int>(rank_count())) rank = -1;
  if (rank == rank_) return;
  rank_ = rank;
  size_t scopes = 0;
  std::optional<Trace> part = make_part(&scopes);
  // The scope may not run on this rank: then the rank is shown whole.
  if (!under_.empty() && scopes == 0) under_.clear();
  show(std::move(part), scopes);
}

bool Session::set_under(const std::string& name) {
  if (name == under_) return true;
  const std::string before = under_;
  under_ = name;
  size_t scopes = 0;
  std::optional<Trace> part = make_part(&scopes);
  if (!name.empty() && scopes == 0) {
    under_ = before;
    return false;
  }
  show(std::move(part), scopes);
  return true;
}

std::string Session::no_scope_named(const std::string& name) const {
  if (rank_ < 0) return brickprof::no_scope_named(whole_, name);
  return rank_label() + ": " +
         brickprof::no_scope_named(source_subset(whole_, static_cast<size_t>(rank_)).trace, name);
}

void Session::set_peaks(const PeakOverrides& peaks) {
  if (building_.valid()) tree();
  settings_.peaks = peaks;
  c_ = {};
  whole_computed_.reset();
  forget_derived();
}

std::optional<Trace> Session::make_part(size_t* scopes) const {
  std::optional<Trace> part;
  *scopes = 0;
  if (rank_ >= 0) part = source_subset(whole_, static_cast<size_t>(rank_)).trace;
  if (!under_.empty()) {
    Subset s = subtrees_named(part ? *part : whole_, under_);
    *scopes = s.roots;
    if (s.roots) part = std::move(s.trace);
  }
  return part;
}

void Session::show(std::optional<Trace> part, size_t scopes) {
  if (building_.valid()) tree();  // the whole trace's tree, kept below
  under_scopes_ = scopes;
  const bool was_whole = !part_, now_whole = !part;
  if (was_whole) whole_computed_ = std::move(c_);
  c_ = {};  // before part_ changes: its tree refers to the trace it shows
  part_ = std::move(part);
  settings_.whole_trace = under_.empty();
  if (now_whole && whole_computed_) {
    c_ = std::move(*whole_computed_);
    whole_computed_.reset();
  }
  forget_derived();
}

// What depends on the choice beyond one trace's models.
void Session::forget_derived() {
  what_ifs_.clear();  // they were for the other path
  diff_.reset();
  outputs_.reset();
  diff_problem_.clear();
  base_part_.reset();
  diff_bricks_.clear();
  diff_kernels_.clear();
  diff_kernel_names_.clear();
  rank_summaries_.reset();
}

const std::vector<std::string>& Session::scope_names() {
  if (!scope_names_.empty()) return scope_names_;
  std::vector<bool> seen(whole_.strings.size(), false);
  for (const Node& n : whole_.nodes) {
    if (!is_cpu_kind(n.kind) || n.name == 0 || seen[n.name]) continue;
    seen[n.name] = true;
    scope_names_.emplace_back(whole_.name(n));
  }
  std::sort(scope_names_.begin(), scope_names_.end());
  return scope_names_;
}

std::unique_ptr<BrowseTree> Session::make_tree() const {
  AggregateTree aggregate = build_aggregate_tree(trace());
  aggregate.whole_trace = settings_.whole_trace;  // under a scope name: no time outside
  return std::make_unique<BrowseTree>(trace(), std::move(aggregate));
}

BrowseTree& Session::tree() {
  if (building_.valid()) c_.tree = building_.get();
  if (!c_.tree) c_.tree = make_tree();
  return *c_.tree;
}

bool Session::has_gpu_work() {
  if (!c_.gpu_work) c_.gpu_work = brickprof::has_gpu_work(trace());
  return *c_.gpu_work;
}

const ViewModel* Session::model(const char* view, std::string* error) {
  if (auto it = c_.models.find(view); it != c_.models.end()) return &it->second;
  if (auto it = c_.errors.find(view); it != c_.errors.end()) {
    if (error) *error = it->second;
    return nullptr;
  }
  if (std::string_view(view) == "critical-path") {
    critical_path(error);
    auto it = c_.models.find(view);
    return it == c_.models.end() ? nullptr : &it->second;
  }
  const View* v = find_view(view);
  try {
    return &c_.models.emplace(view, compute_view(*v, trace(), settings_)).first->second;
  } catch (const std::exception& e) {
    c_.errors[view] = e.what();
    if (error) *error = e.what();
    return nullptr;
  }
}

const std::string& Session::text(const char* view) {
  if (auto it = c_.texts.find(view); it != c_.texts.end()) return it->second;
  std::string error;
  const ViewModel* m = model(view, &error);
  std::ostringstream out;
  if (m)
    render_view(*find_view(view), trace(), *m, false, out);
  else
    out << "brickprof: " << file_ << ": " << error << '\n';
  return c_.texts[view] = out.str();
}

const DependencyGraph* Session::graph(std::string* error) {
  if (!c_.graph && c_.graph_error.empty()) {
    try {
      c_.graph = std::make_unique<DependencyGraph>(build_dependency_graph(trace()));
    } catch (const GraphError& e) {
      c_.graph_error = e.what();
    }
  }
  if (!c_.graph && error) *error = c_.graph_error;
  return c_.graph.get();
}

// The registry's critical-path model is critical_path_report over the
// dependency graph; the graph is kept here for the what-ifs.
const CriticalPathReport* Session::critical_path(std::string* error) {
  if (auto it = c_.models.find("critical-path"); it != c_.models.end())
    return &std::any_cast<const CriticalPathReport&>(it->second);
  const DependencyGraph* g = graph(error);
  if (!g) {
    c_.errors["critical-path"] = c_.graph_error;
    return nullptr;
  }
  ViewModel& m =
      c_.models.emplace("critical-path", critical_path_report(trace(), *g)).first->second;
  return &std::any_cast<const CriticalPathReport&>(m);
}

const std::vector<int64_t>& Session::slack_by_node() {
  if (!c_.slack.empty()) return c_.slack;
  c_.slack.assign(trace().nodes.size(), -1);
  if (const CriticalPathReport* r = critical_path())
    for (const NodeSlack& s : r->path.nodes)
      if (s.node != kNoNode) c_.slack[s.node] = s.slack_ns;
  return c_.slack;
}

const WhatIf* Session::add_what_if(const std::string& name, double factor, std::string* error) {
  const DependencyGraph* g = graph(error);
  if (!g) return nullptr;
  WhatIf result = brickprof::what_if(trace(), *g, name, factor);
  std::erase_if(what_ifs_, [&](const WhatIf& w) { return w.target == name; });
  what_ifs_.push_back(std::move(result));
  return &what_ifs_.back();
}

std::string Session::what_if_text() const {
  std::ostringstream out;
  find_view("what-if")->text(trace(), ViewModel(what_ifs_), out);
  return out.str();
}

const TraceDiff* Session::diff() {
  if (!base_) return nullptr;
  if (diff_) return &*diff_;
  const Trace* base = &*base_;
  if (!diff_problem_.empty()) return nullptr;
  if (!under_.empty()) {
    Subset s = subtrees_named(*base_, under_);
    if (!s.roots) {
      // As `diff --under` refuses such a pair: all of BASE against a part
      // of this trace would judge work BASE did outside the scopes.
      diff_problem_ = base_file_ + ": " + brickprof::no_scope_named(*base_, under_);
      return nullptr;
    }
    base_part_ = std::move(s.trace);
    base = &*base_part_;
  }
  diff_ = diff_traces(*base, trace(), DiffLimits{});
  // Their output checksums too, where either run took some (diff --outputs).
  if (!base->checksums.empty() || !trace().checksums.empty())
    outputs_ = diff_outputs(*base, trace(), OutputTolerance{});
  for (size_t i = 0; i < diff_->entries.size(); ++i) {
    const DiffEntry& e = diff_->entries[i];
    if (e.kind == DiffEntry::Kind::kBrick)
      diff_bricks_.emplace(e.name, i);
    else if (e.new_count)
      diff_kernels_.emplace(std::pair(e.name, e.ptx_hash), i);
    if (e.kind == DiffEntry::Kind::kKernel && e.new_count) diff_kernel_names_.emplace(e.name, i);
  }
  return &*diff_;
}

const DiffEntry* Session::diff_entry(uint32_t row) {
  const TraceDiff* d = diff();
  BrowseTree& t = tree();
  if (!d || t.is_ptx(row)) return nullptr;
  const uint32_t first = t.aggregate().nodes[row].first;
  if (first == kNoNode) return nullptr;
  const Node& n = trace().nodes[first];
  // Names as compute_stats and diff_traces key them: the trace's own.
  const std::string name(trace().name(n));
  if (n.kind == NodeKind::kBrick) {
    auto it = diff_bricks_.find(name);
    return it == diff_bricks_.end() ? nullptr : &d->entries[it->second];
  }
  if (n.kind != NodeKind::kKernel) return nullptr;
  const GpuDetail* g = trace().detail(n);
  auto it = diff_kernels_.find(std::pair(name, g ? g->ptx_hash : 0));
  if (it != diff_kernels_.end()) return &d->entries[it->second];
  // A rebuilt kernel's versions are one entry, under its most launched hash.
  auto by_name = diff_kernel_names_.find(name);
  return by_name == diff_kernel_names_.end() ? nullptr : &d->entries[by_name->second];
}

const std::vector<TraceSummary>& Session::rank_summaries() {
  if (rank_summaries_) return *rank_summaries_;
  rank_summaries_.emplace();
  for (size_t i = 0; i < rank_count(); ++i) {
    Trace rank = source_subset(whole_, i).trace;
    if (!under_.empty()) {
      Subset s = subtrees_named(rank, under_);
      rank = s.roots ? std::move(s.trace) : Trace();
    }
    rank_summaries_->push_back(summarize_trace(rank));
  }
  return *rank_summaries_;
}

}  // namespace brickprof::view
