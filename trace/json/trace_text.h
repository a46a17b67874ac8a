// The text of a trace as the reader walks it: a plain file mapped whole, a
// gzip-compressed one inflated block by block as the reader asks for more
// (told by its magic bytes, whatever its name), or text already in memory.
// Either way the text sits at fixed addresses from offset 0, and what the
// reader has finished with is handed back, so memory stays bounded.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace brickprof {

class TraceText {
 public:
  virtual ~TraceText() = default;

  // Everything available so far. Grows after more(); never moves.
  std::string_view text() const { return {data_, size_.load(std::memory_order_acquire)}; }
  // Makes more text available: false at the end, or after a failure
  // (error() says which). Called by one thread at a time.
  virtual bool more() { return false; }
  // Why more() stopped early ("" at a clean end): a corrupt or truncated
  // compressed stream. No path in it (the reader adds the file's).
  virtual std::string error() const { return {}; }
  // The whole text's size if known, else an estimate (for sizing vectors).
  virtual size_t expected_size() const { return text().size(); }
  // The reader is done with everything below `offset`; may be called from
  // another thread than more().
  virtual void release(size_t /*offset*/) {}

 protected:
  const char* data_ = nullptr;
  std::atomic<size_t> size_{0};
};

// Text already in memory (not copied; must outlive the TraceText).
std::unique_ptr<TraceText> text_in_memory(std::string_view text);
// A trace file, plain or gzip-compressed. Throws TraceError naming the path
// when it cannot be opened.
std::unique_ptr<TraceText> open_trace_text(const std::string& path);

}  // namespace brickprof
