// The exit write's CPU nodes, each a fixed-size record at its id's slot in
// an unlinked temporary file. Nodes close in an order of their own (a
// scope after everything inside it), but the JSON and Chrome traces list
// them by id; the file turns one order into the other without holding the
// nodes in memory. Records are gathered in an aligned window of slots and
// written a window at a time (a node still open when its window is written
// goes alone when it closes); they are read back in blocks. Written with
// pwrite, not through a mapping: a page a mapping touches in a new file is
// zeroed first, which cost a tenth of the exit write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace brickprof::agent {

// One CPU node as the walk closed it; thread, kind and name follow from the
// id and the site.
struct SpilledNode {
  int64_t start_ns;
  int64_t end_ns;
  uint64_t arg;  // elements, or a layer's index
  double flops;
  double bytes_moved;
  uint32_t site;
  uint32_t parent;  // kNoNode for a root
};
static_assert(sizeof(SpilledNode) == 48);

class NodeSpill {
 public:
  NodeSpill() = default;
  ~NodeSpill();
  NodeSpill(const NodeSpill&) = delete;
  NodeSpill& operator=(const NodeSpill&) = delete;

  // Room for `count` nodes: a few in memory, more in a file in `dir`; where
  // no file can be made or the disk has little room, in memory (said in
  // *note). False if the file fails and memory does too.
  bool open(size_t count, const std::string& dir, std::string* note);
  void put(uint32_t id, const SpilledNode& node);
  // After the last put().
  void finish_writes();
  // Random access (the parent of a GPU node, for the Chrome trace's flows).
  SpilledNode get(uint32_t id);
  // Calls visit(id, node) for every id in order.
  template <typename Visit>
  void scan(Visit visit) {
    for (size_t first = 0; first < count_; first += kBlock) {
      load(first);
      const size_t n = std::min(kBlock, count_ - first);
      for (size_t i = 0; i < n; ++i) visit(static_cast<uint32_t>(first + i), block_[i]);
    }
  }

 private:
  static constexpr size_t kWindow = 1 << 15;  // slots gathered before a write (1.5 MiB)
  static constexpr size_t kBlock = 1 << 14;   // slots read at a time
  // Below this the nodes cost less memory than the file's window and block.
  static constexpr size_t kInMemoryBytes = 4 << 20;
  bool hold_in_memory();
  void write_slots(size_t first, const SpilledNode* nodes, size_t n);
  void flush_window();
  void load(size_t first);  // the block starting at `first` into block_

  size_t count_ = 0;
  int fd_ = -1;
  std::vector<SpilledNode> memory_;  // without a file
  std::vector<SpilledNode> window_;
  size_t window_first_ = 0;
  size_t dirty_begin_ = SIZE_MAX, dirty_end_ = 0;  // slots written since the last flush
  std::vector<SpilledNode> block_;
  size_t block_first_ = SIZE_MAX;
  bool failed_ = false;  // a write failed: the trace write reports it
};

}  // namespace brickprof::agent
