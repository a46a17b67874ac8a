// Writes collapsed stacks (see export_folded.h).
//
// Linear in the aggregate tree and the frames written: the stacks are a
// trie of frame texts (aggregate entries whose stacks spell the same text
// share a trie node), built entry by entry, and written by one walk that
// keeps only the current stack's text. Lines come out in bytewise order of
// their stacks without sorting the stacks themselves: under a trie node,
// each child X stands for two runs of lines, "X" (its own) and "X;..."
// (its descendants'), and the runs of all children sort by those keys, a
// terminated key before any it is a prefix of. A frame never holds ';', so
// no key can be a proper prefix of another's ";" form, and each run sorts
// as a whole.
#include "trace/formats/folded.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/model/printable.h"
#include "trace/model/queries.h"

namespace brickprof {
namespace {

constexpr std::string_view kDeeper = "[deeper frames]";

// A frame name may hold anything but the stack separator and line breaks.
std::string frame_text(std::string_view name) {
  std::string text = printable(name);  // one line, nothing a terminal acts on
  for (char& c : text) c = c == ';' ? ':' : c;
  return text;
}

struct TrieNode {
  uint32_t parent = 0;
  uint32_t depth = 0;   // frames, the root 0
  bool line = false;    // some entry here had self time
  bool deeper = false;  // the marker of stacks cut at kMaxFoldedFrames
  int64_t weight = 0;
};

class Folder {
 public:
  Folder(const Trace& trace, const AggregateTree& tree) : trace_(trace), tree_(tree) {
    nodes_.push_back(TrieNode{});  // the root: no frame
    texts_.emplace_back();
    nodes_.reserve(tree.nodes.size() + 1);
    children_.reserve(tree.nodes.size() + 1);
  }

  void build() {
    const size_t count = tree_.nodes.size();
    std::vector<uint32_t> trie_of(count, 0);  // entry -> trie node
    const bool threads = tree_.multi_thread();
    ThreadLabels labels(trace_);
    for (uint32_t agg = 1; agg < count; ++agg) {
      const AggregateNode& a = tree_.nodes[agg];
      const uint32_t parent = trie_of[a.parent];
      if (a.first == kNoNode) {  // a thread group: a frame only with several threads
        trie_of[agg] = threads ? child(parent, frame_text(labels(a.thread))) : parent;
        continue;
      }
      const uint32_t at = child(parent, frame_text(node_label(trace_, trace_.nodes[a.first])));
      trie_of[agg] = at;
      if (a.self_ns > 0) {
        nodes_[at].line = true;
        nodes_[at].weight += a.self_ns;
      }
    }
  }

  void write(std::ostream& out) {
    // Children lists (CSR).
    std::vector<uint32_t> begin(nodes_.size() + 1, 0);
    for (size_t i = 1; i < nodes_.size(); ++i) ++begin[nodes_[i].parent + 1];
    for (size_t i = 0; i < nodes_.size(); ++i) begin[i + 1] += begin[i];
    std::vector<uint32_t> kids(begin.back());
    {
      std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
      for (uint32_t i = 1; i < nodes_.size(); ++i) kids[fill[nodes_[i].parent]++] = i;
    }
    // Depth first, each level's runs sorted; an explicit stack (a trace
    // may nest 10^5 deep). The levels' runs share one vector, a stack too.
    struct Level {
      size_t next;  // into runs
      size_t end;
      size_t stack_length;  // of `stack` before this level's frames
    };
    std::vector<Level> levels;
    std::vector<Run> runs;
    std::string stack, buf;
    auto open_level = [&](uint32_t node) {
      const size_t first = runs.size();
      for (uint32_t k = begin[node]; k < begin[node + 1]; ++k) {
        const uint32_t c = kids[k];
        if (nodes_[c].line) runs.push_back(run_of(c, false));
        if (begin[c + 1] > begin[c]) runs.push_back(run_of(c, true));
      }
      std::sort(runs.begin() + static_cast<std::ptrdiff_t>(first), runs.end(),
                [&](const Run& a, const Run& b) { return before(a, b); });
      levels.push_back({first, runs.size(), stack.size()});
    };
    open_level(0);
    while (!levels.empty()) {
      Level& level = levels.back();
      if (level.next == level.end) {
        runs.resize(levels.size() > 1 ? levels[levels.size() - 2].end : 0);  // its runs go
        levels.pop_back();
        continue;
      }
      const Run run = runs[level.next++];
      stack.resize(level.stack_length);
      if (!stack.empty()) stack.push_back(';');
      stack += run.text;
      if (run.descendants) {
        open_level(run.node);  // `level` and `runs` may move
        continue;
      }
      buf += stack;
      buf.push_back(' ');
      buf += std::to_string(nodes_[run.node].weight);
      buf.push_back('\n');
      if (buf.size() >= (1 << 20)) {
        out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
        buf.clear();
      }
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  }

 private:
  // A run of lines under a trie node: a child's own line, or its
  // descendants'. `prefix` is the run's key's first 16 bytes, big-endian,
  // zero past its end: most comparisons end there.
  struct Run {
    uint64_t prefix[2];
    std::string_view text;  // the child's frame
    uint32_t node;
    bool descendants;
  };

  Run run_of(uint32_t node, bool descendants) const {
    Run r{{0, 0}, texts_[node], node, descendants};
    unsigned char key[16] = {0};
    const size_t n = std::min<size_t>(16, r.text.size());
    std::memcpy(key, r.text.data(), n);
    if (descendants && n < 16) key[n] = ';';
    for (int w = 0; w < 2; ++w)
      for (int b = 0; b < 8; ++b) r.prefix[w] = r.prefix[w] << 8 | key[8 * w + b];
    return r;
  }

  // The child of `parent` with frame `text`; past kMaxFoldedFrames frames,
  // the one marker child that stands for every deeper frame.
  uint32_t child(uint32_t parent, std::string text) {
    if (nodes_[parent].deeper) return parent;
    const bool deeper = nodes_[parent].depth + 1 > kMaxFoldedFrames;
    if (deeper) text = std::string(kDeeper);
    if (auto it = children_.find(Key{parent, text}); it != children_.end()) return it->second;
    const auto id = static_cast<uint32_t>(nodes_.size());
    TrieNode n;
    n.parent = parent;
    n.depth = nodes_[parent].depth + 1;
    n.deeper = deeper;
    nodes_.push_back(n);
    texts_.push_back(std::move(text));  // a deque: the key's view stays valid
    children_.emplace(Key{parent, texts_.back()}, id);
    return id;
  }

  // Whether run `a`'s lines come before run `b`'s: their keys ("X", or
  // "X;" for the descendants) compared bytewise, a prefix first.
  bool before(const Run& a, const Run& b) const {
    // Unequal prefixes decide (a key's end is a zero, below every byte but
    // a NUL in a name, which ties and goes on to the full comparison).
    if (a.prefix[0] != b.prefix[0]) return a.prefix[0] < b.prefix[0];
    if (a.prefix[1] != b.prefix[1]) return a.prefix[1] < b.prefix[1];
    const std::string_view x = a.text, y = b.text;
    const size_t n = std::min(x.size(), y.size());
    if (int c = std::memcmp(x.data(), y.data(), n); c != 0) return c < 0;
    // One is a prefix of the other: compare what follows it in the key
    // (';' for descendants, the end for its own line).
    auto after = [](std::string_view s, size_t at, bool descendants) -> int {
      if (at < s.size()) return static_cast<unsigned char>(s[at]);
      return at == s.size() && descendants ? ';' : -1;  // -1: the key ends
    };
    for (size_t at = n;; ++at) {
      const int cx = after(x, at, a.descendants), cy = after(y, at, b.descendants);
      if (cx != cy) return cx < cy;
      if (cx == -1) return false;  // equal keys: a run against itself
    }
  }

  struct Key {
    uint32_t parent;
    std::string_view text;
    bool operator==(const Key& o) const { return parent == o.parent && text == o.text; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<std::string_view>()(k.text) ^ (uint64_t{k.parent} * 0x9E3779B97F4A7C15ull);
    }
  };

  const Trace& trace_;
  const AggregateTree& tree_;
  std::vector<TrieNode> nodes_;
  std::deque<std::string> texts_;  // each trie node's frame
  std::unordered_map<Key, uint32_t, KeyHash> children_;
};

}  // namespace

void FoldedSink::aggregate(const AggregateInput& in) {
  require_aggregate(in, "folded");
  if (in.reserve && !in.reserve(kFoldedEntryBytes * in.tree.nodes.size()))
    throw std::runtime_error(
        "folded: not written, its stacks did not fit BRICKPROF_BUFFER_MB (brickprof report "
        "writes it from the JSON trace)");
  write_folded(in.entries, in.tree, out_);
}

void write_folded(const Trace& trace, const AggregateTree& tree, std::ostream& out) {
  Folder folder(trace, tree);
  folder.build();
  folder.write(out);
}

}  // namespace brickprof
