// The roofline as a text scatter plot: log-log axes drawn in characters
// (arithmetic intensity in FLOP/B across, GFLOP/s up), the memory roof as
// a slope and the compute roof as a flat line, each brick or kernel a
// letter, and a legend with the figures, one device at a time. Drawn from
// the roofline view's model (analysis/analyses/roofline.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/analyses/roofline.h"
#include "tools/view/canvas.h"
#include "tools/view/list_cursor.h"

namespace brickprof::view {

class RooflinePlot {
 public:
  enum class Show : uint8_t { kBoth, kBricks, kKernels };

  void next_device() { ++device_; }
  void next_kinds() { show_ = static_cast<Show>((static_cast<int>(show_) + 1) % 3); }
  ListCursor& cursor() { return cursor_; }
  // Entries in the legend (what j/k move through) for this model.
  size_t count(const Roofline& model) const;
  // `trace` names the peaks (a CPU's instruction set).
  void draw(Canvas& canvas, Rect r, const Trace& trace, const Roofline& model);

  struct PlotAxes;  // the plot's cells and log axes (roofline_plot.cpp)

 private:
  // The devices ("gpu0", "cpu") the model has entries on.
  std::vector<std::string> devices(const Roofline& model) const;
  std::vector<const RooflineEntry*> shown(const Roofline& model) const;
  void draw_title(Canvas& canvas, Rect r, const Trace& trace, const RooflineEntry& any,
                  size_t device_count) const;
  void draw_points(Canvas& canvas, const PlotAxes& axes,
                   const std::vector<const RooflineEntry*>& entries) const;
  void draw_legend(Canvas& canvas, Rect legend, const std::vector<const RooflineEntry*>& entries);

  size_t device_ = 0;
  Show show_ = Show::kBoth;
  ListCursor cursor_;
};

// The letter that marks the i-th point: A-Z, a-z, then '*'.
char point_letter(size_t i);

}  // namespace brickprof::view
