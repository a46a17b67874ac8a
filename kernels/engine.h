// Runs prefill and decode steps of a model on one dispatcher (eager or graph replay).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/graph.h"
#include "kernels/output_checks.h"

namespace bricklayer {

enum class Mode { Eager, Graph };

class Engine {
 public:
  // Builds the decode graph (1 token per sequence) and the prefill graph
  // (max_prompt tokens per sequence); both share the tensors.
  // With `comm` (tensor parallelism), rank 0's sampled tokens are broadcast
  // so every rank feeds the same ones.
  Engine(const Model& model, Dispatcher& d, int max_prompt, Mode mode,
         Communicator* comm = nullptr);

  // Prefill: prompt_len tokens per sequence (prompt_len <= max_prompt),
  // tokens sequence-major (batch x prompt_len). Starts a new sequence.
  void prefill(const std::vector<int32_t>& tokens, int prompt_len);
  // One token per sequence at the current position.
  void decode(const std::vector<int32_t>& tokens);

  // Logits of the last token of each sequence (batch x vocab) after a step.
  const std::vector<float>& last_logits() const { return logits_; }
  // Greedy next token per sequence.
  std::vector<int32_t> argmax() const;

  int pos() const { return pos_; }
  // --test-slow-us: a busy wait of `ns` in every layer of every step.
  void set_layer_delay(int64_t ns) { layer_delay_ns_ = ns; }
  // --repeat-brick: each op of the brick dispatched `times` times per call.
  void set_brick_repeat(BrickRepeat repeat) { repeat_ = repeat; }
  // --checksums, --fault (output_checks.h); eager steps only: a captured
  // graph's kernels run at replay, where no brick's output can be read.
  void set_output_checks(OutputChecks checks) { checks_ = checks; }
  // Kernel launches one decode step issues eagerly (ops in the graph).
  int64_t decode_ops() const { return decode_.op_count(); }
  const Graph& decode_graph() const { return decode_; }

 private:
  void run(const Graph& g, const std::vector<int32_t>& tokens, bool replayable);
  void fetch_logits(const Graph& g);

  const Model& model_;
  Dispatcher& d_;
  Mode mode_;
  Communicator* comm_;
  int64_t layer_delay_ns_ = 0;
  BrickRepeat repeat_;
  OutputChecks checks_;
  Graph decode_;
  Graph prefill_;
  int pos_ = 0;
  std::vector<float> logits_;
  std::vector<float> all_logits_;
};

}  // namespace bricklayer
