// Looks a module up in a trace's ptx[] and prints it (see ptx_lookup.h).
#include "analysis/analyses/ptx_lookup.h"

#include <map>
#include <string>

#include "trace/model/hash_text.h"
#include "trace/model/printable.h"

namespace brickprof {

std::optional<uint64_t> parse_ptx_hash(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  if (text.empty() || text.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

const PtxModule* find_ptx(const Trace& trace, uint64_t hash) {
  const PtxModule* module = nullptr;
  for (const PtxModule& m : trace.ptx) {
    if (m.hash != hash) continue;
    // A module listed twice (merged ranks): the copy with text wins.
    if (module == nullptr || module->source.empty()) module = &m;
  }
  return module;
}

bool print_ptx(const Trace& trace, uint64_t hash, std::ostream& out) {
  const PtxModule* module = find_ptx(trace, hash);
  if (module == nullptr) return false;
  out << "module " << hash_text(hash) << "  " << printable(module->kind) << "  " << module->bytes
      << " bytes\n";
  out << "kernels (" << module->kernels.size() << "):\n";
  for (const std::string& k : module->kernels) out << "  " << printable(k) << "\n";

  // Launch counts and GPU time per kernel name, from the nodes that carry it.
  std::map<std::string, std::pair<uint64_t, int64_t>> launched;
  for (const Node& n : trace.nodes) {
    const GpuDetail* d = trace.detail(n);
    if (n.kind != NodeKind::kKernel || d == nullptr || d->ptx_hash != hash) continue;
    auto& slot = launched[std::string(trace.name(n))];
    slot.first += 1;
    slot.second += n.duration_ns();
  }
  if (!launched.empty()) {
    out << "launched:\n";
    for (const auto& [name, s] : launched) {
      out << "  " << printable(name) << "  x" << s.first << "  " << s.second << " ns\n";
    }
  }
  if (module->source.empty()) {
    out << "(source not stored; record with BRICKPROF_PTX=source)\n";
  } else {
    out << "---\n" << printable_text(module->source);
    if (module->source.back() != '\n') out << "\n";
  }
  return true;
}

}  // namespace brickprof
