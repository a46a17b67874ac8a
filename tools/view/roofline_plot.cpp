// The roofline scatter plot (see roofline_plot.h).
#include "tools/view/roofline_plot.h"

#include <algorithm>
#include <cmath>

#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof::view {
namespace {

constexpr int kAxisWidth = 9;     // the y labels and the axis line
constexpr int kLegendWidth = 46;  // beside the plot when there is room
constexpr int kMinPlotWidth = 30;

std::string where(const RooflineEntry& e) {
  return e.gpu ? "gpu" + std::to_string(e.device) : "cpu";
}

bool placeable(const RooflineEntry& e) { return e.intensity() > 0 && e.gflops() > 0; }

// A decade's label: 0.01, 0.1, 1, 10, 100, 1K, 10K, ...
std::string decade(int exponent) {
  if (exponent < 0) return "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + "1";
  static const char* suffix[] = {"", "K", "M", "G"};
  const int group = std::min(exponent / 3, 3);
  std::string s = "1" + std::string(static_cast<size_t>(exponent - 3 * group), '0');
  return s + suffix[group];
}

// A log axis from 10^lo to 10^hi over `cells` cells.
struct LogAxis {
  int lo = 0, hi = 1, cells = 1;
  double at(double v) const {  // 0 .. cells-1, may fall outside
    return (std::log10(v) - lo) / (hi - lo) * (cells - 1);
  }
  double value(double cell) const { return std::pow(10.0, lo + cell / (cells - 1) * (hi - lo)); }
};

LogAxis axis_for(double low, double high, int cells) {
  LogAxis a;
  a.lo = static_cast<int>(std::floor(std::log10(low)));
  a.hi = std::max(a.lo + 1, static_cast<int>(std::ceil(std::log10(high))));
  a.cells = std::max(2, cells);
  return a;
}

}  // namespace

char point_letter(size_t i) {
  if (i < 26) return static_cast<char>('A' + i);
  if (i < 52) return static_cast<char>('a' + (i - 26));
  return '*';
}

std::vector<std::string> RooflinePlot::devices(const Roofline& model) const {
  std::vector<std::string> out;
  for (const RooflineEntry& e : model.entries)
    if (std::find(out.begin(), out.end(), where(e)) == out.end()) out.push_back(where(e));
  return out;
}

std::vector<const RooflineEntry*> RooflinePlot::shown(const Roofline& model) const {
  const std::vector<std::string> all = devices(model);
  std::vector<const RooflineEntry*> out;
  if (all.empty()) return out;
  const std::string& device = all[device_ % all.size()];
  for (const RooflineEntry& e : model.entries) {
    if (where(e) != device) continue;
    const bool brick = e.kind == RooflineEntry::Kind::kBrick;
    if ((show_ == Show::kBricks && !brick) || (show_ == Show::kKernels && brick)) continue;
    out.push_back(&e);
  }
  return out;
}

size_t RooflinePlot::count(const Roofline& model) const { return shown(model).size(); }

void RooflinePlot::draw(Canvas& canvas, Rect r, const Trace& trace, const Roofline& model) {
  for (int y = r.y; y < r.bottom(); ++y) canvas.fill(r.x, y, r.w, Style::kNormal);
  const std::vector<const RooflineEntry*> entries = shown(model);
  if (model.entries.empty()) {
    canvas.put(r.x + 1, r.y + 1,
               "No flops/bytes_moved annotations in the trace: nothing to place on the roofline.",
               Style::kDim, r.w - 2);
    return;
  }
  const std::vector<std::string> all = devices(model);
  const std::string device = all[device_ % all.size()];
  const RooflineEntry& any =
      *std::find_if(model.entries.begin(), model.entries.end(),
                    [&](const RooflineEntry& e) { return where(e) == device; });
  const Peaks& peaks = any.peaks;
  const double ridge = peaks.gflops / peaks.gbps;
  // Title: the device's peaks and where they came from, and the keys.
  int x = r.x + 1;
  x += canvas.put(x, r.y, peaks_heading(trace, any.gpu, any.device, peaks) + ": ", Style::kBold);
  const std::string detail = peaks_detail(peaks);
  x += canvas.put(x, r.y,
                  format_rate(peaks.gflops * 1e9, "FLOP") + ", " +
                      format_rate(peaks.gbps * 1e9, "B") + ", ridge " + format_fixed(ridge, 1) +
                      " FLOP/B" + (detail.empty() ? "" : " (" + printable(detail) + ")"),
                  Style::kNormal, r.right() - x);
  const char* kinds[] = {"bricks and kernels", "bricks", "kernels"};
  canvas.put(r.x + 1, r.y + 1,
             std::string("showing ") + kinds[static_cast<int>(show_)] + " (b)" +
                 (all.size() > 1 ? ", device " + std::to_string(device_ % all.size() + 1) + " of " +
                                       std::to_string(all.size()) + " (])"
                                 : ""),
             Style::kDim, r.w - 2);

  // Where the plot and the legend go.
  const bool beside = r.w >= kAxisWidth + kMinPlotWidth + kLegendWidth;
  const int top = r.y + 2;
  const int legend_rows = beside ? 0 : std::min<int>(static_cast<int>(entries.size()) + 1, r.h / 3);
  Rect plot{r.x + kAxisWidth, top, (beside ? r.w - kLegendWidth : r.w) - kAxisWidth - 1,
            r.bottom() - top - 2 - legend_rows};
  Rect legend = beside ? Rect{r.right() - kLegendWidth + 1, top, kLegendWidth - 1, r.bottom() - top}
                       : Rect{r.x + 1, r.bottom() - legend_rows, r.w - 2, legend_rows};

  // Axes wide enough for every point, the ridge and the roof above them.
  double x_lo = ridge, x_hi = ridge, y_lo = peaks.gflops, y_hi = peaks.gflops;
  for (const RooflineEntry* e : entries) {
    if (!placeable(*e)) continue;
    x_lo = std::min(x_lo, e->intensity());
    x_hi = std::max(x_hi, e->intensity());
    y_lo = std::min(y_lo, e->gflops());
    y_hi = std::max(y_hi, e->gflops());
  }
  y_lo = std::min(y_lo, peaks.gbps * x_lo);  // the slope's start is on the plot
  if (plot.w >= 10 && plot.h >= 4) {
    const LogAxis ax = axis_for(x_lo, x_hi * 1.5, plot.w);
    const LogAxis ay = axis_for(y_lo, y_hi * 1.5, plot.h);
    auto row_of = [&](double gflops) {
      return plot.bottom() - 1 - static_cast<int>(std::lround(ay.at(gflops)));
    };
    // Axes, decades labelled.
    for (int y = plot.y; y < plot.bottom(); ++y) canvas.put(plot.x - 1, y, "│", Style::kDim);
    canvas.put(plot.x - 1, plot.bottom(), "└", Style::kDim);
    for (int cx = plot.x; cx < plot.right(); ++cx) canvas.put(cx, plot.bottom(), "─", Style::kDim);
    for (int e = ay.lo; e <= ay.hi; ++e) {
      const int y = row_of(std::pow(10.0, e));
      if (y >= plot.y && y < plot.bottom())
        canvas.put_right(r.x, y, kAxisWidth - 2, decade(e), Style::kDim);
    }
    // A label whole and clear of the one before, or none.
    int free_from = plot.x;
    for (int e = ax.lo; e <= ax.hi; ++e) {
      const int cx = plot.x + static_cast<int>(std::lround(ax.at(std::pow(10.0, e))));
      const std::string label = decade(e);
      if (cx < free_from || cx + static_cast<int>(label.size()) > r.right()) continue;
      canvas.put(cx, plot.bottom() + 1, label, Style::kDim);
      free_from = cx + static_cast<int>(label.size()) + 1;
    }
    canvas.put_right(r.x, plot.y, kAxisWidth - 2, "GFLOP/s", Style::kDim);
    canvas.put_right(r.x, plot.bottom() + 1, kAxisWidth - 2, "FLOP/B", Style::kDim);
    // The roofs: min(peak, bandwidth x intensity), filled between columns.
    int previous = -1;
    for (int cx = 0; cx < plot.w; ++cx) {
      const double intensity = ax.value(cx);
      const bool slope = intensity < ridge;
      const int y = row_of(std::min(peaks.gflops, peaks.gbps * intensity));
      // A steep slope climbs several rows per column: fill up to the last one.
      const int lowest = previous > y + 1 ? previous - 1 : y;
      for (int fy = y; fy <= lowest; ++fy)
        if (fy >= plot.y && fy < plot.bottom())
          canvas.put(plot.x + cx, fy, slope ? "╱" : "─", Style::kRoof);
      previous = y;
    }
    // The points; '*' where several fall in one cell (the legend has them
    // all); the selected one last, on top, marked.
    std::vector<std::pair<int, int>> used;
    auto cell_of = [&](const RooflineEntry& e) {
      return std::pair(plot.x + static_cast<int>(std::lround(ax.at(e.intensity()))),
                       row_of(e.gflops()));
    };
    auto inside = [&](std::pair<int, int> c) {
      return c.first >= plot.x && c.first < plot.right() && c.second >= plot.y &&
             c.second < plot.bottom();
    };
    for (size_t i = 0; i < entries.size(); ++i) {
      if (!placeable(*entries[i])) continue;
      const auto c = cell_of(*entries[i]);
      if (!inside(c)) continue;
      const bool taken = std::find(used.begin(), used.end(), c) != used.end();
      used.push_back(c);
      canvas.put(c.first, c.second, taken ? "*" : std::string(1, point_letter(i)), Style::kPoint);
    }
    if (cursor_.selected < entries.size() && placeable(*entries[cursor_.selected])) {
      const auto c = cell_of(*entries[cursor_.selected]);
      if (inside(c)) {
        canvas.put(c.first, c.second, std::string(1, point_letter(cursor_.selected)),
                   Style::kPoint);
        canvas.select(c.first, c.second, 1);
      }
    }
  }

  // The legend: letter, name, kind, figures; j/k select.
  if (legend.h < 2) return;
  canvas.fill(legend.x, legend.y, legend.w, Style::kHeader);
  canvas.put(legend.x + 4, legend.y, "name", Style::kHeader);
  canvas.put_right(legend.x + 22, legend.y, 7, "FLOP/B", Style::kHeader);
  canvas.put_right(legend.x + 30, legend.y, 7, "GFLOP/s", Style::kHeader);
  canvas.put_right(legend.x + 38, legend.y, 6, "roof", Style::kHeader);
  const size_t rows = static_cast<size_t>(legend.h - 1);
  cursor_.follow(entries.size(), rows);
  for (size_t i = 0; i < rows && cursor_.top + i < entries.size(); ++i) {
    const size_t at = cursor_.top + i;
    const RooflineEntry& e = *entries[at];
    const int y = legend.y + 1 + static_cast<int>(i);
    canvas.put(legend.x, y, std::string(1, point_letter(at)), Style::kPoint);
    canvas.put(legend.x + 2, y, e.kind == RooflineEntry::Kind::kBrick ? "b" : "k", Style::kDim);
    canvas.put(legend.x + 4, y, clip(printable(e.name), 18),
               e.kind == RooflineEntry::Kind::kBrick ? Style::kBrick : Style::kKernel, 18);
    if (placeable(e)) {
      canvas.put_right(legend.x + 22, y, 7, format_fixed(e.intensity(), 2), Style::kNormal);
      canvas.put_right(legend.x + 30, y, 7, format_fixed(e.gflops(), 1), Style::kNormal);
      canvas.put_right(legend.x + 38, y, 6, format_fixed(100.0 * e.efficiency(), 1) + "%",
                       e.efficiency() > 1.0 ? Style::kWarning : Style::kNormal);
    } else {
      canvas.put(legend.x + 23, y, "no FLOPs: not plotted", Style::kDim, legend.w - 23);
    }
    if (at == cursor_.selected) canvas.select(legend.x, y, legend.w);
  }
}

}  // namespace brickprof::view
