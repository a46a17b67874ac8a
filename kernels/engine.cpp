// Step driver: eager walks, or capture the decode walk once and replay it per token.
#include "kernels/engine.h"

#include <brickprof/brickprof.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/executor.h"

namespace bricklayer {

Engine::Engine(const Model& model, Dispatcher& d, int max_prompt, Mode mode, Communicator* comm)
    : model_(model),
      d_(d),
      mode_(mode),
      comm_(comm),
      decode_(build_graph(model, 1, std::max(1, max_prompt))),
      prefill_(build_graph(model, std::max(1, max_prompt), std::max(1, max_prompt))) {
  d_.prepare(prefill_);
  d_.prepare(decode_);
}

void Engine::prefill(const std::vector<int32_t>& tokens, int prompt_len) {
  if (prompt_len < 1 || prompt_len > prefill_.seq_tokens)
    throw std::invalid_argument("prompt length " + std::to_string(prompt_len) + " out of range");
  pos_ = 0;
  if (prompt_len == prefill_.seq_tokens) {
    run(prefill_, tokens, false);
  } else {
    const Graph g = build_graph(model_, prompt_len, prefill_.seq_tokens);
    run(g, tokens, false);
  }
  pos_ += prompt_len;
}

void Engine::decode(const std::vector<int32_t>& tokens) {
  run(decode_, tokens, mode_ == Mode::Graph && d_.can_capture());
  pos_ += 1;
}

void Engine::run(const Graph& g, const std::vector<int32_t>& tokens, bool replayable) {
  const Config& c = model_.cfg;
  if (static_cast<int64_t>(tokens.size()) != g.rows())
    throw std::invalid_argument("expected " + std::to_string(g.rows()) + " token ids");
  for (int32_t t : tokens) {
    if (t < 0 || t >= c.vocab) throw std::invalid_argument("token id out of range");
  }
  if (pos_ + g.seq_tokens > c.context)
    throw std::length_error("context of " + std::to_string(c.context) + " tokens is full");
  const Step step{pos_, tokens.data(), layer_delay_ns_, repeat_,
                  checks_.any() ? &checks_ : nullptr};
  if (!replayable) {
    execute_graph(g, d_, step);
  } else {
    // The first decode step is captured (its kernels run when the capture
    // is replayed); every later one is a single graph launch.
    if (!d_.captured()) {
      d_.begin_capture();
      execute_graph(g, d_, step);
      d_.end_capture();
    }
    d_.replay(g, step);
  }
  fetch_logits(g);
}

void Engine::fetch_logits(const Graph& g) {
  const int64_t vocab = model_.cfg.vocab;
  all_logits_.resize(static_cast<size_t>(g.rows() * vocab));
  d_.read(g.logits, all_logits_.data(), g.rows() * vocab);
  logits_.resize(static_cast<size_t>(model_.cfg.batch * vocab));
  for (int b = 0; b < model_.cfg.batch; ++b) {
    const int64_t last = static_cast<int64_t>(b) * g.seq_tokens + g.seq_tokens - 1;
    std::copy_n(all_logits_.begin() + last * vocab, vocab, logits_.begin() + b * vocab);
  }
}

std::vector<int32_t> Engine::argmax() const {
  const int64_t vocab = model_.cfg.vocab;
  std::vector<int32_t> next(static_cast<size_t>(model_.cfg.batch));
  {
    BRICKPROF_BRICK(BRICKPROF_BRICK_SAMPLING, logits_.size());
    brickprof_set_shapes("f32", {{model_.cfg.batch, vocab}}, {model_.cfg.batch});
    for (int b = 0; b < model_.cfg.batch; ++b) {
      const auto first = logits_.begin() + b * vocab;
      next[static_cast<size_t>(b)] =
          static_cast<int32_t>(std::max_element(first, first + vocab) - first);
    }
    if (checks_.checksums) brickprof_checksum("next", next.data(), next.size(), "i32");
  }
  // Every rank holds the same logits up to the order of its sums; rank 0's
  // choice is the one all of them feed back.
  if (comm_ && comm_->size() > 1) {
    BRICKPROF_BRICK_NAMED("Broadcast", next.size());
    const int64_t ids = static_cast<int64_t>(next.size());
    brickprof_set_shapes("i32", {{ids}}, {ids});
    comm_->broadcast(next.data(), static_cast<int64_t>(next.size()), 0);
  }
  return next;
}

}  // namespace bricklayer
