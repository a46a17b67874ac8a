// The one-line prompt at the bottom of the screen: `/` search, `u` the
// scope name (Tab completes from the trace's scope names), `w` the what-if
// factor. Emacs-style editing keys, Enter accepts, Esc cancels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/view/canvas.h"

namespace brickprof::view {

class Prompt {
 public:
  enum class Purpose : uint8_t { kSearch, kUnder, kWhatIf };
  enum class Result : uint8_t { kEditing, kDone, kCancelled };

  void open(Purpose purpose, std::string label, std::string initial,
            const std::vector<std::string>* completions = nullptr);
  bool active() const { return active_; }
  Purpose purpose() const { return purpose_; }
  const std::string& text() const { return text_; }
  Result key(int k);
  void draw(Canvas& canvas, int y) const;

 private:
  void complete();

  bool active_ = false;
  Purpose purpose_ = Purpose::kSearch;
  std::string label_, text_;
  size_t cursor_ = 0;                                      // byte offset, on a character boundary
  const std::vector<std::string>* completions_ = nullptr;  // sorted
  std::vector<std::string> candidates_;                    // of the last Tab
  size_t cycle_ = 0;
  std::string hint_;
};

}  // namespace brickprof::view
