// A rank's summary on the wire (see summary_wire.h).
#include "agent/mpi/summary_wire.h"

#include <cstdint>
#include <cstring>

namespace brickprof::agent::mpi {
namespace {

constexpr uint32_t kMagic = 0x626a7331;  // "bjs1": this layout

class Writer {
 public:
  template <typename T>
  void put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof v);
    out.append(b, sizeof b);
  }
  void text(std::string_view s, size_t limit) {
    s = s.substr(0, limit);
    put(static_cast<uint16_t>(s.size()));
    out.append(s);
  }
  std::string out;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  bool get(T* v) {
    if (in_.size() < sizeof(T)) return false;
    std::memcpy(v, in_.data(), sizeof(T));
    in_.remove_prefix(sizeof(T));
    return true;
  }
  bool text(std::string* s) {
    uint16_t n = 0;
    if (!get(&n) || in_.size() < n) return false;
    s->assign(in_.data(), n);
    in_.remove_prefix(n);
    return true;
  }
  bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
};

void put_stats(Writer& w, const std::vector<TimeStat>& stats) {
  w.put(static_cast<uint32_t>(stats.size()));
  for (const TimeStat& s : stats) {
    w.text(s.name, kMaxNameBytes);
    w.put(static_cast<uint8_t>(s.category));
    w.put(s.count);
    w.put(s.total_ns);
    w.put(s.min_ns);
    w.put(s.max_ns);
  }
}

bool get_stats(Reader& r, std::vector<TimeStat>* stats) {
  uint32_t n = 0;
  if (!r.get(&n) || n > kMaxNames) return false;
  stats->resize(n);
  for (TimeStat& s : *stats) {
    uint8_t category = 0;
    if (!r.text(&s.name) || !r.get(&category) || category > static_cast<uint8_t>(Category::kNone) ||
        !r.get(&s.count) || !r.get(&s.total_ns) || !r.get(&s.min_ns) || !r.get(&s.max_ns))
      return false;
    s.category = static_cast<Category>(category);
  }
  return true;
}

}  // namespace

std::string pack_summary(const RankSummary& s) {
  Writer w;
  w.put(kMagic);
  w.put(s.rank);
  w.put(s.pid);
  w.text(s.host, 255);
  w.put(static_cast<uint8_t>(s.clock_aligned));
  w.put(s.first_ns);
  w.put(s.last_ns);
  w.put(s.scopes);
  w.put(s.open_scopes);
  w.put(s.dropped_events);
  w.put(s.summarize_ns);
  w.text(s.note, 1024);
  put_stats(w, s.bricks);
  w.put(s.bricks_left_out);
  put_stats(w, s.kernels);
  w.put(s.kernels_left_out);
  w.put(static_cast<uint32_t>(s.collectives.size()));
  for (const CollectiveArrival& c : s.collectives) {
    w.put(c.comm_key);
    w.put(c.seq);
    w.put(c.bytes);
    w.put(static_cast<uint8_t>(c.op));
    w.put(c.root);
    w.put(c.comm_rank);
    w.put(c.comm_size);
    w.put(c.arrival_ns);
    w.put(c.end_ns);
  }
  w.put(s.collectives_left_out);
  w.put(static_cast<uint32_t>(s.memory_peaks.size()));
  for (const MemoryPeak& m : s.memory_peaks) {
    w.text(m.account, kMaxAccountBytes);
    w.put(m.peak_bytes);
  }
  w.put(s.memory_peaks_left_out);
  return std::move(w.out);
}

bool unpack_summary(std::string_view bytes, RankSummary* out) {
  Reader r(bytes);
  RankSummary s;
  uint32_t magic = 0;
  uint8_t aligned = 0;
  if (!r.get(&magic) || magic != kMagic || !r.get(&s.rank) || !r.get(&s.pid) || !r.text(&s.host) ||
      !r.get(&aligned) || !r.get(&s.first_ns) || !r.get(&s.last_ns) || !r.get(&s.scopes) ||
      !r.get(&s.open_scopes) || !r.get(&s.dropped_events) || !r.get(&s.summarize_ns) || !r.text(&s.note) ||
      !get_stats(r, &s.bricks) ||
      !r.get(&s.bricks_left_out) || !get_stats(r, &s.kernels) || !r.get(&s.kernels_left_out))
    return false;
  s.clock_aligned = aligned != 0;
  uint32_t n = 0;
  if (!r.get(&n) || n > kMaxCollectives) return false;
  s.collectives.resize(n);
  for (CollectiveArrival& c : s.collectives) {
    uint8_t op = 0;
    if (!r.get(&c.comm_key) || !r.get(&c.seq) || !r.get(&c.bytes) || !r.get(&op) ||
        op > static_cast<uint8_t>(CommOp::kWaitany) || !r.get(&c.root) || !r.get(&c.comm_rank) ||
        !r.get(&c.comm_size) || !r.get(&c.arrival_ns) || !r.get(&c.end_ns))
      return false;
    c.op = static_cast<CommOp>(op);
  }
  if (!r.get(&s.collectives_left_out) || !r.get(&n) || n > kMaxMemoryPeaks) return false;
  s.memory_peaks.resize(n);
  for (MemoryPeak& m : s.memory_peaks)
    if (!r.text(&m.account) || !r.get(&m.peak_bytes)) return false;
  if (!r.get(&s.memory_peaks_left_out) || !r.done()) return false;
  *out = std::move(s);
  return true;
}

}  // namespace brickprof::agent::mpi
