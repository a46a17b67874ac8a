// The `report --numerics` view: the first output with a NaN or Inf, and in
// a merged job the outputs ranks disagree on (numerics.h).
#include <cstdio>

#include "analysis/analyses/numerics.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

constexpr size_t kListed = 10;

NumericsReport compute(const Trace& t, const ViewSettings&) { return analyze_numerics(t); }

void json(const Trace&, const NumericsReport& r, JsonWriter& w) {
  w.begin_object();
  w.field("outputs", r.outputs.size()).field("nonfinite_outputs", r.nonfinite);
  w.field("nan", r.nan).field("inf", r.inf);
  w.key("first_nonfinite");
  if (r.first_nonfinite) {
    const OutputAt& o = r.outputs[*r.first_nonfinite];
    w.begin_object().field("path", o.path).field("launched", o.launched);
    w.field("index", *r.first_nonfinite).field("nan", o.checksum->digest.nan);
    w.field("inf", o.checksum->digest.inf).field("count", o.checksum->digest.count);
    w.end_object();
  } else {
    w.null();
  }
  w.field("replicas_compared", r.replicas_compared);
  w.key("replica_mismatches").begin_array();
  for (const ReplicaMismatch& m : r.mismatches) {
    w.newline().begin_object().field("path", m.path).key("ranks").begin_array();
    for (const std::string& rank : m.ranks) w.value(rank);
    w.end_array().end_object();
  }
  w.end_array().end_object().newline();
}

void text(const Trace&, const NumericsReport& r, std::ostream& out) {
  if (r.outputs.empty()) {
    out << "Numerics: no output checksums recorded (brickprof run --checksums, or "
           "brickprof_checksum in the program)\n";
    return;
  }
  out << "Numerics: " << r.outputs.size() << " outputs checked\n";
  if (!r.first_nonfinite) {
    out << "  every output is finite (no NaN or Inf)\n";
  } else {
    const OutputAt& o = r.outputs[*r.first_nonfinite];
    const Digest& d = o.checksum->digest;
    out << "  first NaN/Inf: " << printable(o.path) << "\n    launched under "
        << printable(o.launched) << ": " << d.nan << " NaN and " << d.inf << " Inf of " << d.count
        << " elements\n";
    if (*r.first_nonfinite == 0)
      out << "    it is the first output recorded\n";
    else
      out << "    the " << *r.first_nonfinite
          << (*r.first_nonfinite == 1 ? " output" : " outputs")
          << " before it were finite: it made them from finite inputs\n";
    out << "  " << r.nonfinite << (r.nonfinite == 1 ? " output holds" : " outputs hold")
        << " NaN or Inf in all (" << r.nan << " NaN, " << r.inf << " Inf)\n";
  }
  if (r.replicas_compared == 0) return;
  out << "Replicas: " << r.replicas_compared << " outputs every rank has; "
      << r.mismatches.size() << " differ from the first rank's bytes\n";
  for (size_t i = 0; i < r.mismatches.size() && i < kListed; ++i) {
    out << "    " << printable(r.mismatches[i].path) << ":";
    for (const std::string& rank : r.mismatches[i].ranks) out << " " << printable(rank);
    out << "\n";
  }
  if (r.mismatches.size() > kListed)
    out << "    ... " << r.mismatches.size() - kListed << " more (--json lists all)\n";
}

}  // namespace

extern constinit const View kNumericsView = make_view<compute, text, json>(
    "numerics",
    "The first output (of the checksums recorded) holding a NaN or Inf, and outputs ranks of a "
    "merged job disagree on",
    false);

}  // namespace brickprof
