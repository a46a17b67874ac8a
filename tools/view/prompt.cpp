// The prompt's line editing and completion (see prompt.h).
#include "tools/view/prompt.h"

#include <algorithm>

#include "tools/view/keys.h"

namespace brickprof::view {
namespace {

constexpr size_t kMaxHinted = 4;

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

void Prompt::open(Purpose purpose, std::string label, std::string initial,
                  const std::vector<std::string>* completions) {
  active_ = true;
  purpose_ = purpose;
  label_ = std::move(label);
  text_ = std::move(initial);
  cursor_ = text_.size();
  completions_ = completions;
  candidates_.clear();
  hint_.clear();
}

Prompt::Result Prompt::key(int k) {
  if (k != key::kTab) candidates_.clear();
  switch (k) {
    case key::kEnter:
    case '\r':
      active_ = false;
      return Result::kDone;
    case key::kEscape:
    case 7:  // Ctrl-G
      active_ = false;
      return Result::kCancelled;
    case key::kBackspace:
    case 127:
    case 8:
      if (cursor_ == 0) break;
      {
        size_t from = cursor_ - 1;
        while (from > 0 && continuation(text_[from])) --from;
        text_.erase(from, cursor_ - from);
        cursor_ = from;
      }
      break;
    case key::kDelete:
      if (cursor_ < text_.size()) {
        size_t to = cursor_ + 1;
        while (to < text_.size() && continuation(text_[to])) ++to;
        text_.erase(cursor_, to - cursor_);
      }
      break;
    case key::kLeft:
      while (cursor_ > 0 && continuation(text_[--cursor_])) {
      }
      break;
    case key::kRight:
      if (cursor_ < text_.size()) ++cursor_;
      while (cursor_ < text_.size() && continuation(text_[cursor_])) ++cursor_;
      break;
    case key::kHome:
    case 1:  // Ctrl-A
      cursor_ = 0;
      break;
    case key::kEnd:
    case 5:  // Ctrl-E
      cursor_ = text_.size();
      break;
    case key::kCtrlU:
      text_.erase(0, cursor_);
      cursor_ = 0;
      break;
    case key::kCtrlW: {
      size_t from = cursor_;
      while (from > 0 && text_[from - 1] == ' ') --from;
      while (from > 0 && text_[from - 1] != ' ') --from;
      text_.erase(from, cursor_ - from);
      cursor_ = from;
      break;
    }
    case key::kTab:
      complete();
      break;
    default:
      if (k >= ' ' && k < 256 && k != 127) {
        text_.insert(cursor_, 1, static_cast<char>(k));
        ++cursor_;
        hint_.clear();
      }
      break;
  }
  return Result::kEditing;
}

// The first Tab completes to the longest prefix the names that start with
// the text share; further Tabs cycle through those names.
void Prompt::complete() {
  if (!completions_) return;
  if (!candidates_.empty()) {
    text_ = candidates_[cycle_++ % candidates_.size()];
    cursor_ = text_.size();
    return;
  }
  auto first = std::lower_bound(completions_->begin(), completions_->end(), text_);
  std::vector<std::string> found;
  for (auto it = first; it != completions_->end() && it->compare(0, text_.size(), text_) == 0; ++it)
    found.push_back(*it);
  if (found.empty()) {
    hint_ = "no scope starts with that";
    return;
  }
  std::string common = found.front();
  for (const std::string& f : found) {
    size_t n = 0;
    while (n < common.size() && n < f.size() && common[n] == f[n]) ++n;
    common.resize(n);
  }
  text_ = common;
  cursor_ = text_.size();
  if (found.size() == 1) {
    hint_.clear();
    return;
  }
  hint_ = std::to_string(found.size()) + " names:";
  for (size_t i = 0; i < found.size() && i < kMaxHinted; ++i) hint_ += (i ? ", " : " ") + found[i];
  if (found.size() > kMaxHinted) hint_ += ", …";
  candidates_ = std::move(found);
  cycle_ = 0;
}

void Prompt::draw(Canvas& canvas, int y) const {
  canvas.fill(0, y, canvas.width(), Style::kPrompt);
  int x = canvas.put(0, y, label_, Style::kPrompt);
  const int text_x = x;
  x += canvas.put(x, y, text_, Style::kPrompt);
  // The cursor: the cell after the text before it, shown selected.
  const int at = text_x + display_width(std::string_view(text_).substr(0, cursor_), canvas.ascii());
  if (at < canvas.width()) canvas.select(at, y, 1);
  if (!hint_.empty() && x + 3 < canvas.width()) canvas.put(x + 2, y, hint_, Style::kDim);
}

}  // namespace brickprof::view
