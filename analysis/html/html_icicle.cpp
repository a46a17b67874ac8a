// Builds and writes the HTML page's flame graph (see html_icicle.h).
#include "analysis/html/html_icicle.h"

#include <algorithm>
#include <deque>
#include <numeric>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "analysis/html/flat_index.h"

namespace brickprof {
namespace {

// Children of one entry are told apart by kind and name.
struct ChildKey {
  uint32_t parent;
  uint32_t name;
  IcicleEntry::Kind kind;
  NodeKind node_kind;
  bool operator==(const ChildKey&) const = default;
};

struct ChildKeyHash {
  size_t operator()(const ChildKey& k) const {
    uint64_t h = (uint64_t{k.parent} << 32 | k.name) * 0x9e3779b97f4a7c15ull;
    h ^= static_cast<uint64_t>(k.kind) << 8 | static_cast<uint64_t>(k.node_kind);
    h *= 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

class Builder {
 public:
  explicit Builder(const Trace& t) : t_(t) { entries_.push_back(IcicleEntry{}); }

  std::vector<IcicleEntry> build() {
    const size_t n = t_.nodes.size();
    // Thread entries only when top-level nodes sit on more than one thread.
    std::unordered_set<uint32_t> top_threads;
    for (const Node& node : t_.nodes)
      if (node.parent == kNoNode) top_threads.insert(node.thread);
    const bool by_thread = top_threads.size() > 1;
    // Each node's entry after its parent's: in trace order, each node with
    // the ancestors not placed yet (no recursion: a nest may be deep).
    std::vector<uint32_t> entry_of(n, kNoNode);
    std::vector<uint32_t> chain;
    for (uint32_t i = 0; i < n; ++i) {
      chain.clear();
      uint32_t cur = i;
      while (cur != kNoNode && entry_of[cur] == kNoNode) {
        chain.push_back(cur);
        cur = t_.nodes[cur].parent;
      }
      for (size_t k = chain.size(); k-- > 0;) {
        const Node& node = t_.nodes[chain[k]];
        uint32_t parent = 0;
        if (cur != kNoNode)
          parent = entry_of[cur];
        else if (by_thread)
          parent = child({0, node.thread, IcicleEntry::Kind::kThread, NodeKind::kScope});
        const uint32_t e = child({parent, node.name, IcicleEntry::Kind::kNode, node.kind});
        entry_of[chain[k]] = e;
        IcicleEntry& entry = entries_[e];
        entry.count++;
        entry.total += node.duration_ns();
        if (on_stream(node.kind)) entry.gpu += node.duration_ns();
        cur = chain[k];
      }
    }
    // Children come after their parent: one backward pass sees every child
    // before its parent.
    std::vector<int64_t> host_children(entries_.size(), 0);
    for (size_t e = entries_.size(); e-- > 1;) {
      const IcicleEntry& entry = entries_[e];
      IcicleEntry& parent = entries_[entry.parent];
      parent.gpu += entry.gpu;
      if (entry.is_gpu()) continue;
      host_children[entry.parent] += entry.total;
      if (parent.kind != IcicleEntry::Kind::kNode) parent.total += entry.total;
    }
    for (size_t e = 0; e < entries_.size(); ++e) {
      IcicleEntry& entry = entries_[e];
      entry.self = entry.is_gpu() ? entry.total : entry.total - host_children[e];
    }
    return std::move(entries_);
  }

 private:
  uint32_t child(const ChildKey& key) {
    // Ids are entry indices: the root, entry 0, is never looked up.
    auto [id, inserted] = index_.insert(key);
    if (inserted) {
      IcicleEntry e;
      e.kind = key.kind;
      e.node_kind = key.node_kind;
      e.parent = key.parent;
      e.name = key.name;
      entries_.push_back(e);
    }
    return id + 1;
  }

  const Trace& t_;
  std::vector<IcicleEntry> entries_;
  FlatIndex<ChildKey, ChildKeyHash> index_;
};

// The heaviest `max_entries` by max(total, gpu), which never grows from
// parent to child, so they are a tree but where ties cut an ancestor: those
// come back. Renumbered in their order.
std::vector<IcicleEntry> keep_heaviest(const std::vector<IcicleEntry>& entries,
                                       size_t max_entries) {
  auto weight = [&](uint32_t e) { return std::max(entries[e].total, entries[e].gpu); };
  std::vector<uint32_t> order(entries.size());
  std::iota(order.begin(), order.end(), 0u);
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(max_entries),
                   order.end(), [&](uint32_t a, uint32_t b) {
                     return weight(a) != weight(b) ? weight(a) > weight(b) : a < b;
                   });
  std::vector<uint8_t> keep(entries.size(), 0);
  for (size_t k = 0; k < max_entries; ++k) {
    for (uint32_t e = order[k]; e != kNoNode && !keep[e]; e = entries[e].parent) keep[e] = 1;
  }
  std::vector<uint32_t> new_index(entries.size(), kNoNode);
  std::vector<IcicleEntry> out;
  for (uint32_t e = 0; e < entries.size(); ++e) {
    if (!keep[e]) continue;
    new_index[e] = static_cast<uint32_t>(out.size());
    out.push_back(entries[e]);
    if (out.back().parent != kNoNode) out.back().parent = new_index[out.back().parent];
  }
  return out;
}

std::string_view thread_name(const Trace& t, uint32_t tid) {
  for (size_t i = t.threads.size(); i-- > 0;)
    if (t.threads[i].tid == tid) return t.threads[i].name;
  return {};
}

}  // namespace

HtmlIcicle build_html_icicle(const Trace& trace, size_t max_entries) {
  HtmlIcicle icicle;
  icicle.entries = Builder(trace).build();
  icicle.of = icicle.entries.size();
  if (icicle.entries.size() > max_entries)
    icicle.entries = keep_heaviest(icicle.entries, max_entries);
  return icicle;
}

void write_html_icicle(const Trace& t, const HtmlIcicle& icicle, JsonWriter& w) {
  const std::vector<IcicleEntry>& entries = icicle.entries;
  // Names in order of first use, each distinct text once.
  std::deque<std::string> own;  // the root's and the threads' names (stable addresses)
  std::unordered_map<std::string_view, int64_t> index_of;
  std::vector<std::string_view> strings;
  std::vector<int64_t> name(entries.size());
  for (size_t e = 0; e < entries.size(); ++e) {
    std::string_view text;
    switch (entries[e].kind) {
      case IcicleEntry::Kind::kRoot:
        text = own.emplace_back("all");
        break;
      case IcicleEntry::Kind::kThread:
        text = own.emplace_back(thread_title(entries[e].name, thread_name(t, entries[e].name)));
        break;
      case IcicleEntry::Kind::kNode:
        text = t.strings.view(entries[e].name);
        break;
    }
    auto [it, inserted] = index_of.try_emplace(text, static_cast<int64_t>(strings.size()));
    if (inserted) strings.push_back(text);
    name[e] = it->second;
  }
  auto column = [&](const char* key, auto figure) {
    w.key(key).begin_array();
    for (size_t e = 0; e < entries.size(); ++e) w.value(figure(entries[e]));
    w.end_array();
  };
  w.begin_object();
  // Kinds: the root, threads, then NodeKind's in order.
  w.key("kinds").begin_array().value("root").value("thread");
  for (int k = 0; k <= static_cast<int>(NodeKind::kSync); ++k)
    w.value(to_string(static_cast<NodeKind>(k)));
  w.end_array();
  w.key("strings").begin_array();
  for (std::string_view s : strings) w.value(s);
  w.end_array();
  w.key("name").begin_array();
  for (int64_t n : name) w.value(n);
  w.end_array();
  column("kind", [](const IcicleEntry& e) {
    return e.kind == IcicleEntry::Kind::kRoot     ? 0
           : e.kind == IcicleEntry::Kind::kThread ? 1
                                                  : 2 + static_cast<int>(e.node_kind);
  });
  column("parent", [](const IcicleEntry& e) {
    return e.parent == kNoNode ? int64_t{-1} : int64_t{e.parent};
  });
  column("count", [](const IcicleEntry& e) { return e.count; });
  column("total", [](const IcicleEntry& e) { return e.total; });
  column("self", [](const IcicleEntry& e) { return e.self; });
  column("gpu", [](const IcicleEntry& e) { return e.gpu; });
  w.key("sampled");
  if (icicle.sampled()) {
    const std::string how = "the " + std::to_string(entries.size()) + " heaviest of " +
                            std::to_string(icicle.of) + " entries; lighter ones are left out";
    w.begin_object().field("kept", uint64_t{entries.size()}).field("of", uint64_t{icicle.of});
    w.field("how", how).end_object();
  } else {
    w.null();
  }
  w.end_object();
}

}  // namespace brickprof
