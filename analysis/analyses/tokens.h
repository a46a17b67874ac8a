// The program's tokens and counters (trace/model/counters.h) as the
// token-centric view reads them: tokens per second over the time that
// produced them, each brick's time per token, and each counter's samples.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "trace/derive/stats.h"
#include "trace/model/trace.h"

namespace brickprof {

// Tokens per second is `tokens` over `window_ns`: the time of the outermost
// scopes (on their threads) that tokens were reported in, each scope once,
// plus the run's whole recorded time (process end - start) when some were
// reported outside every scope. So a program that reports its tokens
// inside one scope around its generation gets its count over that scope's
// time.
struct TokenFigures {
  uint64_t tokens = 0;
  uint64_t reports = 0;           // brickprof_tokens calls
  int64_t window_ns = 0;
  uint64_t scopes = 0;            // the outermost scopes in the window
  uint64_t outside_scopes = 0;    // reports outside every scope
  double per_second() const;      // 0 when there is no window
  double ns_per_token() const;    // 0 when there are no tokens
};

// A brick's share: its whole time (as the summary's Total) per token of
// the run, and the tokens per second it alone would allow.
struct BrickTokens {
  size_t brick = 0;  // index into TokenReport::stats.bricks
  double ns_per_token = 0;
  double tokens_per_second = 0;
};

// One counter's samples, by name in order of first sample.
struct CounterSeries {
  StringId name = 0;
  uint64_t samples = 0;
  double min = 0, max = 0, mean = 0, last = 0;
};

struct TokenReport {
  TokenFigures figures;
  TraceStats stats;                  // the bricks BrickTokens index
  std::vector<BrickTokens> bricks;   // empty when there are no tokens
  std::vector<CounterSeries> counters;
};

// The tokens alone (for the summary).
TokenFigures token_figures(const Trace& trace);
TokenReport analyze_tokens(const Trace& trace);

class JsonWriter;
// The figures as the summary and `report --tokens` both show them: one
// line of text, one JSON object (views/view_tokens.cpp).
void tokens_line(const TokenFigures& figures, std::ostream& out);
void tokens_json(const TokenFigures& figures, JsonWriter& w);

}  // namespace brickprof
