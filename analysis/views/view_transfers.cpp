// The `report --transfers` view: totals, link use, pageable copies,
// ping-pong, re-uploads, each finding named by the scope that issued it.
#include <cstdio>

#include "analysis/analyses/trace_scope.h"
#include "analysis/analyses/transfers.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

// Lists in the text stop here; the JSON lists every entry.
constexpr size_t kShown = 10;

// A rate, or null where there is none (zero-length copies only).
void rate_json(JsonWriter& w, std::string_view key, bool has_rate, double value) {
  w.key(key);
  if (has_rate)
    w.value(value);
  else
    w.null();
}

void more_line(size_t count, std::ostream& out) {
  if (count > kShown) out << "  ... " << count - kShown << " more (--json lists all)\n";
}

void findings_json(JsonWriter& w, const Trace& t, std::string_view key,
                   const std::vector<CopyFinding>& v, const ScopeNamer& scope) {
  w.key(key).begin_array();
  for (const CopyFinding& f : v) {
    w.newline()
        .begin_object()
        .field("node", t.file_id(f.node))
        .field("scope", scope(f.node))
        .field("bytes", f.bytes)
        .field("duration_ns", f.duration_ns);
    rate_json(w, "gbps", f.has_rate(), f.gbps);
    rate_json(w, "link_share", f.has_rate(), f.link_share);
    w.end_object();
  }
  w.end_array();
}

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

TransferReport compute(const Trace& t, const ViewSettings& settings) {
  return analyze_transfers(t, settings.peaks);
}

void json(const Trace& t, const TransferReport& r, JsonWriter& w) {
  const ScopeNamer scope(t);
  w.begin_object();
  w.key("link")
      .begin_object()
      .field("gbps", r.link.gbps)
      .field("source", r.link.source)
      .end_object();
  w.key("totals").begin_array();
  for (const DirectionTotal& d : r.totals) {
    w.newline()
        .begin_object()
        .field("direction", to_string(d.direction))
        .field("count", d.count)
        .field("bytes", d.bytes)
        .field("time_ns", d.time_ns)
        .field("zero_length", d.zero_length);
    rate_json(w, "gbps", d.has_rate(), d.gbps());
    w.end_object();
  }
  w.end_array();
  findings_json(w, t, "slow", r.slow, scope);
  w.field("pageable_count", r.pageable_count).field("pageable_bytes", r.pageable_bytes);
  findings_json(w, t, "pageable", r.pageable, scope);
  w.key("ping_pongs").begin_array();
  for (const PingPong& p : r.ping_pongs) {
    w.newline().begin_object().key("nodes").begin_array();
    for (uint32_t n : p.nodes) w.value(t.file_id(n));
    w.end_array()
        .field("host_addr", p.host_addr)
        .field("bytes", p.bytes)
        .field("scope", scope(p.nodes.back()))
        .end_object();
  }
  w.end_array();
  w.key("repeated_uploads").begin_array();
  for (const RepeatedUpload& u : r.repeated)
    w.newline()
        .begin_object()
        .field("host_addr", u.host_addr)
        .field("bytes", u.bytes)
        .field("uploads", u.uploads)
        .field("wasted_bytes", u.wasted_bytes())
        .field("scope", scope(u.second_node))
        .end_object();
  w.end_array().end_object().newline();
}

void text(const Trace& t, const TransferReport& r, std::ostream& out) {
  const ScopeNamer namer(t);
  auto scope = [&](uint32_t node) { return printable(namer(node)); };
  out << "Transfers (link " << format_rate(r.link.gbps * 1e9, "B") << ", " << r.link.source
      << ")\n";
  if (r.totals.empty()) out << "  no transfers in the trace\n";
  for (const DirectionTotal& d : r.totals) {
    out << "  " << to_string(d.direction) << ": " << d.count
        << (d.count == 1 ? " copy, " : " copies, ") << format_bytes(static_cast<uint64_t>(d.bytes))
        << " in " << format_duration(d.time_ns) << " (";
    if (!d.has_rate())
      out << "no rate: zero-length copies only";
    else
      out << format_rate(d.gbps() * 1e9, "B");
    if (d.has_rate() && d.zero_length)
      out << "; " << d.zero_length << " zero-length cop" << (d.zero_length == 1 ? "y" : "ies")
          << " left out of the rate";
    out << ")\n";
  }
  if (!r.slow.empty()) out << "Slow copies (H2D/D2H of 1 MiB+, under half the link):\n";
  for (size_t i = 0; i < r.slow.size() && i < kShown; ++i) {
    const CopyFinding& f = r.slow[i];
    out << "  " << scope(f.node) << ": " << format_bytes(f.bytes) << " at "
        << format_rate(f.gbps * 1e9, "B") << " (" << format_fixed(100 * f.link_share, 0)
        << "% of link)\n";
  }
  more_line(r.slow.size(), out);
  if (r.pageable_count)
    out << "Pageable-memory copies: " << r.pageable_count << " (" << format_bytes(r.pageable_bytes)
        << "); pin the host buffers (cudaHostAlloc) to copy asynchronously at full speed\n";
  for (size_t i = 0; i < r.pageable.size() && i < kShown; ++i)
    out << "  " << scope(r.pageable[i].node) << ": " << format_bytes(r.pageable[i].bytes) << '\n';
  more_line(r.pageable.size(), out);
  if (!r.ping_pongs.empty())
    out << "Ping-pong (the same host range back and forth): " << r.ping_pongs.size() << '\n';
  for (size_t i = 0; i < r.ping_pongs.size() && i < kShown; ++i) {
    const PingPong& p = r.ping_pongs[i];
    out << "  " << scope(p.nodes.back()) << ": "
        << (p.nodes.size() == 3 ? "H2D -> D2H -> H2D" : "D2H -> H2D") << " of "
        << format_bytes(p.bytes) << " at host " << hex(p.host_addr) << '\n';
  }
  more_line(r.ping_pongs.size(), out);
  if (!r.repeated.empty())
    out << "Repeated uploads of unchanged host ranges: " << r.repeated.size() << '\n';
  for (size_t i = 0; i < r.repeated.size() && i < kShown; ++i) {
    const RepeatedUpload& u = r.repeated[i];
    out << "  " << scope(u.second_node) << ": " << format_bytes(u.bytes) << " at host "
        << hex(u.host_addr) << " uploaded " << u.uploads << "x (" << format_bytes(u.wasted_bytes())
        << " redundant)\n";
  }
  more_line(r.repeated.size(), out);
}

}  // namespace

extern constinit const View kTransfersView = make_view<compute, text, json>(
    "transfers",
    "Copies per direction, slow (H2D/D2H of 1 MiB+ under half the link) and pageable copies, "
    "ping-pong",
    false);

}  // namespace brickprof
