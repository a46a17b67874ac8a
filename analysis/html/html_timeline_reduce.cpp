// The HTML timeline's reduction (tools/html/README.md, "Reduction"): a
// timeline of more slices than the page takes merges, in each row, runs of
// neighbouring short slices into one, with a threshold that doubles until
// the result fits.
#include <algorithm>
#include <numeric>

#include "analysis/html/html_timeline.h"
#include "analysis/html/html_timeline_sort.h"

namespace brickprof {
namespace {

// One pass at `threshold`: hands each resulting slice to `emit`, row after
// row. A run holds siblings only (same parent; GPU rows have none), ends at
// a gap of the threshold or more (idle time stays idle) and before it would
// span more than the threshold (busy and idle stretches stay apart at that
// resolution); a slice of the threshold or longer is kept as it is.
template <typename Emit>
void merge_short(const std::vector<TimelineSlice>& slices, const std::vector<uint32_t>& rows,
                 int64_t threshold, Emit&& emit) {
  const TimelineSlice* first = nullptr;  // of the current run
  const TimelineSlice* last = nullptr;
  const TimelineSlice* longest = nullptr;
  int64_t end = 0;
  uint32_t merged = 0, members = 0;
  auto flush = [&] {
    if (members == 1) {
      emit(*first);
    } else if (members > 1) {
      TimelineSlice m = *longest;  // named after its longest member
      m.start = first->start;
      m.dur = end - first->start;
      m.merged = merged;
      emit(m);
    }
    members = merged = 0;
  };
  for (size_t k = 0; k < rows.size(); ++k) {
    const TimelineSlice& s = slices[rows[k]];
    const bool new_row =
        k == 0 || s.lane != slices[rows[k - 1]].lane || s.depth != slices[rows[k - 1]].depth;
    if (new_row) flush();
    if (s.dur >= threshold) {
      flush();
      emit(s);
      continue;
    }
    if (members > 0 && (s.parent != last->parent || s.start - last->end() >= threshold ||
                        s.end() - first->start > threshold))
      flush();
    if (members == 0) {
      first = longest = &s;
      end = s.end();
    } else if (s.dur > longest->dur) {
      longest = &s;
    }
    last = &s;
    end = std::max(end, s.end());
    merged += s.merged;
    members++;
  }
  flush();
}

}  // namespace

void reduce_timeline(HtmlTimeline& tl, size_t max_slices) {
  std::vector<TimelineSlice>& slices = tl.slices;
  const size_t total = slices.size();
  if (total <= max_slices) return;
  // Row after row, each by start (the slices are by lane, start, row).
  std::vector<uint32_t> rows(total);
  std::iota(rows.begin(), rows.end(), 0u);
  std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    const TimelineSlice &x = slices[a], &y = slices[b];
    return x.lane != y.lane ? x.lane < y.lane : x.depth < y.depth;
  });
  // The first threshold keeps the longest half of the slices the page takes.
  std::vector<int64_t> durations(total);
  for (size_t i = 0; i < total; ++i) durations[i] = slices[i].dur;
  auto nth = durations.begin() + static_cast<std::ptrdiff_t>(max_slices / 2);
  std::nth_element(durations.begin(), nth, durations.end(), std::greater<int64_t>());
  int64_t threshold = std::max<int64_t>(1, *nth);
  // Past the span nothing more can merge (no slice, gap or run is that long):
  // rows of more unrelated slices than fit keep them.
  for (;;) {
    size_t count = 0;
    merge_short(slices, rows, threshold, [&](const TimelineSlice&) { count++; });
    if (count <= max_slices || threshold > tl.span_ns) break;
    threshold *= 2;
  }
  std::vector<TimelineSlice> out;
  merge_short(slices, rows, threshold, [&](const TimelineSlice& s) { out.push_back(s); });
  sort_within_lanes(out, tl.lanes.size(), by_start_then_row);
  TimelineReduction r;
  r.of = total;
  r.threshold_ns = threshold;
  for (const TimelineSlice& s : out) (s.merged > 1 ? r.merged : r.kept)++;
  tl.slices = std::move(out);
  tl.reduced = r;
}

}  // namespace brickprof
