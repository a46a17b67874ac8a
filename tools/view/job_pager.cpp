// The job summary's screen (see job_pager.h).
#include "tools/view/job_pager.h"

#include <algorithm>

#include "tools/view/keys.h"

namespace brickprof::view {
namespace {

// Rows of text between the title line and the key line.
int body_rows(int height) { return std::max(1, height - 2); }

bool is_heading(const std::string& line) { return !line.empty() && line[0] != ' '; }

}  // namespace

JobPager::JobPager(const std::string& text, std::string file) : file_(std::move(file)) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines_.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

void JobPager::draw(Canvas& c) const {
  c.fill(0, 0, c.width(), Style::kTitle);
  c.put(0, 0, " brickprof view " + file_ + "  (MPI job summary)", Style::kTitle);
  const int rows = body_rows(c.height());
  for (int y = 0; y < rows; ++y) {
    const size_t i = static_cast<size_t>(top_ + y);
    if (i >= lines_.size()) break;
    c.put(0, y + 1, lines_[i], is_heading(lines_[i]) ? Style::kHeader : Style::kNormal);
  }
  const int last = c.height() - 1;
  c.fill(0, last, c.width(), Style::kStatus);
  const int shown_end = std::min<int>(top_ + rows, static_cast<int>(lines_.size()));
  c.put(0, last,
        " j/k scroll  PgUp/PgDn page  g/G top/end  q quit   lines " + std::to_string(top_ + 1) +
            "-" + std::to_string(shown_end) + " of " + std::to_string(lines_.size()),
        Style::kStatus);
}

void JobPager::key(int k, int height) {
  const int rows = body_rows(height);
  const int bottom = std::max(0, static_cast<int>(lines_.size()) - rows);
  switch (k) {
    case 'q':
    case key::kEscape:
      done_ = true;
      return;
    case 'j':
    case key::kDown:
      ++top_;
      break;
    case 'k':
    case key::kUp:
      --top_;
      break;
    case ' ':
    case key::kPageDown:
      top_ += rows;
      break;
    case key::kPageUp:
      top_ -= rows;
      break;
    case 'g':
    case key::kHome:
      top_ = 0;
      break;
    case 'G':
    case key::kEnd:
      top_ = bottom;
      break;
    default:
      break;
  }
  top_ = std::clamp(top_, 0, bottom);
}

}  // namespace brickprof::view
