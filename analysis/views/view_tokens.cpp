// The `report --tokens` view: what the program said of itself (tokens.h):
// tokens per second over the time that produced them, each brick's time
// per token, and every counter's samples.
#include <cstdio>
#include <string>

#include "analysis/analyses/tokens.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {

// The line the summary and this view share.
void tokens_line(const TokenFigures& f, std::ostream& out) {
  out << "Tokens: " << f.tokens << " in " << format_duration(f.window_ns) << ": "
      << format_fixed(f.per_second(), 2) << " tokens/s, "
      << format_duration(static_cast<int64_t>(f.ns_per_token() + 0.5)) << " per token\n";
}

void tokens_json(const TokenFigures& f, JsonWriter& w) {
  w.begin_object().field("tokens", f.tokens).field("reports", f.reports);
  w.field("window_ns", f.window_ns).field("scopes", f.scopes);
  w.field("outside_scopes", f.outside_scopes);
  w.field("tokens_per_second", f.per_second()).field("ns_per_token", f.ns_per_token());
  w.end_object();
}

namespace {

std::string number(double v) {
  char tmp[32];
  std::snprintf(tmp, sizeof tmp, "%.6g", v);
  return tmp;
}

TokenReport compute(const Trace& t, const ViewSettings&) { return analyze_tokens(t); }

void text(const Trace& t, const TokenReport& r, std::ostream& out) {
  const TokenFigures& f = r.figures;
  if (f.reports == 0) {
    out << "Tokens: none reported (brickprof_tokens, brickprof.tokens())\n";
  } else {
    tokens_line(f, out);
    out << "  (" << f.reports << (f.reports == 1 ? " report" : " reports") << "; the time: " << f.scopes
        << (f.scopes == 1 ? " outermost scope" : " outermost scopes") << " they were reported in";
    if (f.outside_scopes) out << ", and the whole run for " << f.outside_scopes << " outside every scope";
    out << ")\n";
  }
  if (!r.bricks.empty()) {
    size_t width = 5;
    for (const BrickTokens& b : r.bricks)
      width = std::max(width, printable(r.stats.bricks[b.brick].name).size());
    out << "\nPer brick (its total time per token of the run):\n"
        << pad_right("Brick", width) << pad_left("Total", 11) << pad_left("per token", 11)
        << pad_left("tokens/s", 13) << "\n"
        << std::string(width + 35, '-') << "\n";
    for (const BrickTokens& b : r.bricks) {
      const BrickStat& s = r.stats.bricks[b.brick];
      out << pad_right(printable(s.name), width) << pad_left(format_duration(s.total_ns), 11)
          << pad_left(format_duration(static_cast<int64_t>(b.ns_per_token + 0.5)), 11)
          << pad_left(format_fixed(b.tokens_per_second, 2), 13) << "\n";
    }
  }
  if (r.counters.empty()) {
    out << "Counters: none reported (brickprof_counter, brickprof.counter())\n";
    return;
  }
  size_t width = 7;
  for (const CounterSeries& c : r.counters)
    width = std::max(width, printable(t.strings.view(c.name)).size());
  out << "\nCounters (the program's own samples):\n"
      << pad_right("Counter", width) << pad_left("Samples", 9) << pad_left("Min", 12)
      << pad_left("Mean", 12) << pad_left("Max", 12) << pad_left("Last", 12) << "\n"
      << std::string(width + 57, '-') << "\n";
  for (const CounterSeries& c : r.counters)
    out << pad_right(printable(t.strings.view(c.name)), width)
        << pad_left(std::to_string(c.samples), 9) << pad_left(number(c.min), 12)
        << pad_left(number(c.mean), 12) << pad_left(number(c.max), 12)
        << pad_left(number(c.last), 12) << "\n";
}

void json(const Trace& t, const TokenReport& r, JsonWriter& w) {
  w.begin_object().key("tokens");
  tokens_json(r.figures, w);
  w.key("bricks").begin_array();
  for (const BrickTokens& b : r.bricks) {
    const BrickStat& s = r.stats.bricks[b.brick];
    w.newline().begin_object().field("name", s.name).field("total_ns", s.total_ns);
    w.field("ns_per_token", b.ns_per_token).field("tokens_per_second", b.tokens_per_second);
    w.end_object();
  }
  w.end_array();
  w.key("counters").begin_array();
  for (const CounterSeries& c : r.counters) {
    w.newline().begin_object().field("name", t.strings.view(c.name)).field("samples", c.samples);
    w.field("min", c.min).field("mean", c.mean).field("max", c.max).field("last", c.last);
    w.end_object();
  }
  w.end_array().end_object().newline();
}

}  // namespace

extern constinit const View kTokensView = make_view<compute, text, json>(
    "tokens",
    "Tokens per second and time per token (overall and per brick), and the program's counters "
    "(brickprof_tokens, brickprof_counter)",
    false);

}  // namespace brickprof
