// What the browser shows, and the models it shows it from: the trace as
// read (and the base of a diff), the part of it chosen (one rank of a
// merged trace, what ran under scopes of a name), and each model computed
// on first use and kept until the choice changes. Models come from the
// report views' registry (analysis/views/views.h) and the analyses behind it,
// so every figure on the screen is the one `brickprof report` prints.
#pragma once

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/analyses/critical_path.h"
#include "analysis/analyses/output_diff.h"
#include "analysis/analyses/trace_diff.h"
#include "analysis/views/views.h"
#include "tools/view/browse_tree.h"
#include "trace/derive/stats.h"

namespace brickprof::view {

class Session {
 public:
  Session(Trace trace, std::string file, std::optional<Trace> base = {},
          std::string base_file = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& file() const { return file_; }
  const std::string& base_file() const { return base_file_; }
  bool has_base() const { return base_.has_value(); }
  const Trace& whole() const { return whole_; }
  // The trace every pane shows: the chosen rank, under the chosen scopes.
  const Trace& trace() const { return part_ ? *part_ : whole_; }

  // The ranks of a merged trace (its sources[]); rank -1 is all of them.
  size_t rank_count() const { return whole_.sources.size(); }
  int rank() const { return rank_; }
  std::string rank_label() const;  // "rank 1", or "" for all
  void set_rank(int rank);

  const std::string& under() const { return under_; }
  size_t under_scopes() const { return under_scopes_; }
  // Restricts to what ran under scopes named `name` (in the chosen rank);
  // false, and nothing changes, when no scope has that name. "" clears it.
  bool set_under(const std::string& name);
  // Why set_under(name) changed nothing, as `--under` says it: "no scope
  // named 'X' (--under); closest: 'A', 'B'", on the chosen rank ("rank 1: ...").
  std::string no_scope_named(const std::string& name) const;
  // Distinct layer, brick and scope names of the whole trace, sorted: what
  // `u` completes.
  const std::vector<std::string>& scope_names();

  // The tree of the trace shown; built on first use, or waited for when
  // start_tree() is building it.
  BrowseTree& tree();
  // Whether the trace shown holds any kernel, copy, memset or sync (no GPU
  // column without).
  bool has_gpu_work();
  bool tree_built() const { return c_.tree != nullptr; }
  // Builds the whole trace's tree on another thread, so the first screen
  // need not wait for it (on a 10^6-node trace where nothing repeats it
  // takes longer than reading); every other model is computed meanwhile.
  void start_tree();
  // False while start_tree()'s build runs.
  bool tree_ready() const;
  // Waits up to `patience` for that build; true when the tree is ready.
  bool wait_tree(std::chrono::milliseconds patience);
  // The run's length (run_span_ns of the whole trace).
  int64_t run_ns() const { return run_ns_; }
  bool diff_computed() const { return diff_.has_value() || !diff_problem_.empty(); }
  bool rank_summaries_computed() const { return rank_summaries_.has_value(); }

  // The view's model (or its error) is at hand.
  bool computed(const char* view) const {
    return c_.models.count(view) != 0 || c_.errors.count(view) != 0;
  }
  // A registry view's model, computed on first use; nullptr and `error`
  // set when the analysis refused the trace (a dependency cycle).
  const ViewModel* model(const char* view, std::string* error = nullptr);
  // The view's text as `brickprof report --<view>` prints it (or the error).
  const std::string& text(const char* view);

  // The critical path (the registry's "critical-path" model) and, per trace
  // node, its slack (-1: no activity of its own on the dependency graph).
  const CriticalPathReport* critical_path(std::string* error = nullptr);
  const std::vector<int64_t>& slack_by_node();
  // "NAME K times faster" on the critical path, added to the what-ifs
  // (replacing one for the same name).
  const WhatIf* add_what_if(const std::string& name, double factor, std::string* error);
  const std::vector<WhatIf>& what_ifs() const { return what_ifs_; }
  void clear_what_ifs() { what_ifs_.clear(); }
  // The what-ifs as `report --what-if` writes them.
  std::string what_if_text() const;

  // With a base: BASE against the current trace (under the same scopes),
  // and the entry for a tree row (bricks by name, kernels by name and PTX
  // hash), or nullptr. Under scopes BASE does not have there is no diff, as
  // `diff --under` has none: diff_problem() says why.
  const TraceDiff* diff();
  const DiffEntry* diff_entry(uint32_t row);
  // With diff(): the runs' output checksums compared as `diff --outputs`
  // compares them (default tolerances), or nullptr when neither took any.
  const OutputDiff* output_diff() const { return outputs_ ? &*outputs_ : nullptr; }
  const std::string& diff_problem() const { return diff_problem_; }

  // Each rank's summary model, for the ranks side by side.
  const std::vector<TraceSummary>& rank_summaries();

  const ViewSettings& settings() const { return settings_; }
  // Peak overrides (--peak-gflops, ...) for the roofline and transfers.
  void set_peaks(const PeakOverrides& peaks);

 private:
  // What is computed from one choice of rank and scopes. The whole trace's
  // is kept while a part is shown, so going back to it (U, or r round to
  // all ranks) is instant.
  struct Computed {
    std::unique_ptr<BrowseTree> tree;
    std::map<std::string, ViewModel, std::less<>> models;
    std::map<std::string, std::string, std::less<>> texts;
    std::map<std::string, std::string, std::less<>> errors;
    std::unique_ptr<DependencyGraph> graph;
    std::string graph_error;
    std::vector<int64_t> slack;
    std::optional<bool> gpu_work;  // has_gpu_work()'s answer
  };

  // The part for the current rank and scope name (none: the whole trace),
  // and how many scopes of that name it found.
  std::optional<Trace> make_part(size_t* scopes) const;
  // The browser's tree of the trace shown.
  std::unique_ptr<BrowseTree> make_tree() const;
  void show(std::optional<Trace> part, size_t scopes);
  void forget_derived();
  const DependencyGraph* graph(std::string* error);

  Trace whole_;
  std::string file_;
  std::optional<Trace> base_;
  std::string base_file_;
  std::optional<Trace> part_;
  int rank_ = -1;
  std::string under_;
  size_t under_scopes_ = 0;
  ViewSettings settings_;
  std::vector<std::string> scope_names_;

  Computed c_;
  std::optional<Computed> whole_computed_;             // while a part is shown
  std::future<std::unique_ptr<BrowseTree>> building_;  // start_tree()'s
  int64_t run_ns_ = 0;
  std::vector<WhatIf> what_ifs_;
  std::optional<TraceDiff> diff_;
  std::optional<OutputDiff> outputs_;
  std::optional<Trace> base_part_;
  std::string diff_problem_;  // why there is no diff, or ""
  std::unordered_map<std::string, size_t> diff_bricks_;
  std::map<std::pair<std::string, uint64_t>, size_t> diff_kernels_;
  std::unordered_map<std::string, size_t> diff_kernel_names_;
  std::optional<std::vector<TraceSummary>> rank_summaries_;
};

}  // namespace brickprof::view
