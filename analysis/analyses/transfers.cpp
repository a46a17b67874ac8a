// Transfer analysis (see transfers.h).
#include "analysis/analyses/transfers.h"

#include <algorithm>
#include <tuple>

namespace brickprof {
namespace {

bool host_side(Direction d) { return d == Direction::kH2D || d == Direction::kD2H; }

uint64_t host_addr(const GpuDetail& d) {
  return d.direction == Direction::kH2D ? d.src_addr : d.dst_addr;
}

}  // namespace

TransferReport analyze_transfers(const Trace& t, const PeakOverrides& o) {
  TransferReport r;
  uint32_t device = 0;
  std::vector<DirectionTotal> totals(6);
  std::vector<uint32_t> copies;
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    const GpuDetail* d = t.detail(n);
    if (n.kind != NodeKind::kTransfer || !d) continue;
    device = d->device;
    DirectionTotal& tot = totals[static_cast<size_t>(d->direction)];
    tot.direction = d->direction;
    tot.count++;
    tot.bytes += d->bytes;
    if (n.duration_ns() > 0) {
      tot.time_ns += n.duration_ns();
      tot.timed_bytes += d->bytes;
    } else {
      tot.zero_length++;
    }
    copies.push_back(i);
  }
  for (const DirectionTotal& tot : totals)
    if (tot.count) r.totals.push_back(tot);
  r.link = link_peak(t, device, o);
  std::vector<CopyFinding> slow, pageable;
  for (uint32_t i : copies) {
    const Node& n = t.nodes[i];
    const GpuDetail& d = *t.detail(n);
    if (!host_side(d.direction)) continue;
    CopyFinding f{i, d.bytes, std::max<int64_t>(0, n.duration_ns()), 0, 0};
    if (f.has_rate()) {
      f.gbps = static_cast<double>(d.bytes) / static_cast<double>(f.duration_ns);
      f.link_share = r.link.gbps > 0 ? f.gbps / r.link.gbps : 0;
    }
    // Tiny copies are latency-bound by nature; only judge those of 1 MiB+.
    if (d.bytes >= (1u << 20) && f.has_rate() && f.link_share < 0.5) slow.push_back(f);
    if (d.src_kind == MemoryKind::kPageable || d.dst_kind == MemoryKind::kPageable) {
      r.pageable_count++;
      r.pageable_bytes += d.bytes;
      pageable.push_back(f);
    }
  }
  // Every finding, in order (the text shows the first ones, the JSON all).
  std::sort(slow.begin(), slow.end(), [](const CopyFinding& a, const CopyFinding& b) {
    return a.link_share != b.link_share ? a.link_share < b.link_share : a.node < b.node;
  });
  std::sort(pageable.begin(), pageable.end(), [](const CopyFinding& a, const CopyFinding& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.node < b.node;
  });
  r.slow = std::move(slow);
  r.pageable = std::move(pageable);

  // Group host-side copies by (host address, size), in time order.
  std::vector<uint32_t> hs;
  for (uint32_t i : copies)
    if (host_side(t.detail(t.nodes[i])->direction) && host_addr(*t.detail(t.nodes[i])) != 0)
      hs.push_back(i);
  auto key = [&](uint32_t i) {
    const GpuDetail& d = *t.detail(t.nodes[i]);
    return std::make_tuple(host_addr(d), d.bytes, t.nodes[i].start_ns, i);
  };
  std::sort(hs.begin(), hs.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  for (size_t b = 0; b < hs.size();) {
    size_t e = b;
    const GpuDetail& first = *t.detail(t.nodes[hs[b]]);
    while (e < hs.size() && host_addr(*t.detail(t.nodes[hs[e]])) == host_addr(first) &&
           t.detail(t.nodes[hs[e]])->bytes == first.bytes)
      ++e;
    RepeatedUpload rep{host_addr(first), first.bytes, 0, kNoNode, kNoNode};
    auto flush_uploads = [&] {
      if (rep.uploads > 1) r.repeated.push_back(rep);
      rep.uploads = 0;
      rep.first_node = rep.second_node = kNoNode;
    };
    for (size_t k = b; k < e; ++k) {
      uint32_t cur = hs[k];
      Direction dir = t.detail(t.nodes[cur])->direction;
      if (dir == Direction::kH2D) {
        if (rep.uploads == 0)
          rep.first_node = cur;
        else if (rep.uploads == 1)
          rep.second_node = cur;
        rep.uploads++;
        if (k > b && t.detail(t.nodes[hs[k - 1]])->direction == Direction::kD2H) {
          PingPong p{{}, host_addr(first), first.bytes};
          if (k >= b + 2 && t.detail(t.nodes[hs[k - 2]])->direction == Direction::kH2D)
            p.nodes.push_back(hs[k - 2]);
          p.nodes.push_back(hs[k - 1]);
          p.nodes.push_back(cur);
          r.ping_pongs.push_back(std::move(p));
        }
      } else {
        flush_uploads();  // the device wrote it back: a later upload may be new data
      }
    }
    flush_uploads();
    b = e;
  }
  std::sort(r.repeated.begin(), r.repeated.end(),
            [](const RepeatedUpload& a, const RepeatedUpload& b) {
              return a.wasted_bytes() != b.wasted_bytes() ? a.wasted_bytes() > b.wasted_bytes()
                                                          : a.host_addr < b.host_addr;
            });
  return r;
}

}  // namespace brickprof
