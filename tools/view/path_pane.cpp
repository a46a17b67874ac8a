// The critical-path pane (see path_pane.h).
#include "tools/view/path_pane.h"

#include <algorithm>

#include "tools/view/styled_text.h"
#include "tools/view/tree_pane.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof::view {
namespace {

constexpr int kBarWidth = 12;

}  // namespace

std::string bar_text(double fraction, int width) {
  static const char* kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  const int eighths = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * width * 8 + 0.5);
  std::string bar;
  for (int i = 0; i < eighths / 8; ++i) bar += "█";
  bar += kEighths[eighths % 8];
  if (eighths == 0 && fraction > 0) bar = kEighths[1];  // never nothing for something
  return bar;
}

std::string lane_label(const Lane& lane) {
  if (lane.kind == Lane::Kind::kThread) return "thread " + std::to_string(lane.thread);
  return "gpu" + std::to_string(lane.device) + " s" + std::to_string(lane.stream);
}

uint32_t PathPane::selected_node(const CriticalPathReport& path) const {
  return cursor_.selected < path.path.steps.size() ? path.path.steps[cursor_.selected].node
                                                   : kNoNode;
}

void PathPane::draw(Canvas& canvas, Rect r, Session& session, const CriticalPathReport& report) {
  const CriticalPath& cp = report.path;
  if (starts_of_ != &report) {
    starts_of_ = &report;
    starts_.clear();
    int64_t at = cp.start_offset_ns;
    for (const PathStep& s : cp.steps) {
      starts_.push_back(at);
      at += s.duration_ns;
    }
  }
  for (int y = r.y; y < r.bottom(); ++y) canvas.fill(r.x, y, r.w, Style::kNormal);
  int x = r.x + 1;
  x += canvas.put(x, r.y, "Critical path ", Style::kBold);
  x += canvas.put(x, r.y, format_duration(cp.length_ns), Style::kBold);
  x += canvas.put(x, r.y,
                  " over " + std::to_string(cp.steps.size()) + " steps on " +
                      std::to_string(cp.busy_lanes) + " busy lane" +
                      (cp.busy_lanes == 1 ? "" : "s") + ", measured span " +
                      format_duration(cp.measured_span_ns),
                  Style::kNormal, r.right() - x);
  // The what-ifs, as `report --what-if` writes them, or how to make one.
  Lines what_if = report_lines(session.what_if_text());
  if (what_if.empty() || what_if.front().text().empty())
    canvas.put(r.x + 1, r.y + 1, "w on a tree row or a step: what if it ran K times faster?",
               Style::kDim, r.w - 2);
  else
    canvas.put(r.x + 1, r.y + 1, what_if.back().text(), Style::kWarning, r.w - 2);

  const int head = r.y + 2;
  canvas.fill(r.x, head, r.w, Style::kHeader);
  canvas.put_right(r.x, head, 6, "#", Style::kHeader);
  canvas.put_right(r.x + 7, head, 9, "at", Style::kHeader);
  canvas.put_right(r.x + 17, head, 9, "adds", Style::kHeader);
  canvas.put(r.x + 28 + kBarWidth, head, "lane", Style::kHeader);
  canvas.put(r.x + 41 + kBarWidth, head, "name", Style::kHeader);

  const size_t rows = static_cast<size_t>(std::max(0, r.h - kHeaderLines));
  cursor_.follow(cp.steps.size(), rows, 2);
  int64_t longest = 1;
  for (const PathStep& s : cp.steps) longest = std::max(longest, s.duration_ns);
  for (size_t i = 0; i < rows && cursor_.top + i < cp.steps.size(); ++i) {
    const size_t at = cursor_.top + i;
    const PathStep& s = cp.steps[at];
    const int y = head + 1 + static_cast<int>(i);
    canvas.put_right(r.x, y, 6, std::to_string(at + 1), Style::kDim);
    canvas.put_right(r.x + 7, y, 9, format_duration(starts_[at]), Style::kNormal);
    canvas.put_right(r.x + 17, y, 9, format_duration(s.duration_ns), Style::kBold);
    canvas.put(
        r.x + 27, y,
        bar_text(static_cast<double>(s.duration_ns) / static_cast<double>(longest), kBarWidth),
        Style::kBar);
    const Lane& lane = report.lanes[s.lane];
    canvas.put(r.x + 28 + kBarWidth, y, lane_label(lane), Style::kDim, 12);
    const Style style =
        s.node == kNoNode ? Style::kDim : kind_style(session.trace().nodes[s.node].kind);
    canvas.put(r.x + 41 + kBarWidth, y, printable(owner_label(session.trace(), s.node)), style,
               r.right() - (r.x + 41 + kBarWidth));
    if (at == cursor_.selected) canvas.select(r.x, y, r.w);
  }
}

}  // namespace brickprof::view
