// `brickprof view JOB.json`: an MPI job's summary (report's text of it,
// analysis/views/job_summary_view.h) on a full screen that scrolls, with
// the title and key lines of the browser. A job summary has no tree to
// browse: its per-rank table, bricks, kernels and collectives are the view.
#pragma once

#include <string>
#include <vector>

#include "tools/view/canvas.h"

namespace brickprof::view {

class JobPager {
 public:
  // `text`: the summary's lines; `file`: for the title.
  JobPager(const std::string& text, std::string file);
  void draw(Canvas& canvas) const;
  // j/k, arrows, pages, g/G, Home/End scroll; q or Escape quits.
  void key(int k, int height);
  bool done() const { return done_; }

 private:
  std::vector<std::string> lines_;
  std::string file_;
  int top_ = 0;
  bool done_ = false;
};

}  // namespace brickprof::view
