// Where the outputs go: an OutputSink decides where a format's bytes land
// (files next to a prefix, or memory for tests). The formats themselves are
// formats.h's.
#pragma once

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <string_view>

namespace brickprof {

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // Writes one format's output, whatever `fill` streams. Returns "" on
  // success, else one line that says what failed. Never throws.
  virtual std::string emit(std::string_view format, std::string_view extension,
                           const std::function<void(std::ostream&)>& fill) = 0;
  // Where a format with that extension lands, as a user would name it (a
  // file's path; the format's name for memory).
  virtual std::string where(std::string_view format, std::string_view extension) const = 0;
};

// Writes `<prefix><extension>` atomically: a temporary file in the same
// directory, then rename(), so a reader never sees half a file and a failed
// write leaves any earlier output in place (see atomic_file.h).
class FileSink : public OutputSink {
 public:
  explicit FileSink(std::string prefix) : prefix_(std::move(prefix)) {}
  std::string emit(std::string_view format, std::string_view extension,
                   const std::function<void(std::ostream&)>& fill) override;
  std::string where(std::string_view format, std::string_view extension) const override;

 private:
  std::string prefix_;
};

// Keeps each format's text in memory, keyed by format name.
class MemorySink : public OutputSink {
 public:
  using OutputSink::emit;
  std::string emit(std::string_view format, std::string_view extension,
                   const std::function<void(std::ostream&)>& fill) override;
  std::string where(std::string_view format, std::string_view) const override {
    return std::string(format);
  }
  const std::map<std::string, std::string, std::less<>>& outputs() const { return outputs_; }
  // The text written for a format, or "" if none.
  const std::string& text(std::string_view format) const;

 private:
  std::map<std::string, std::string, std::less<>> outputs_;
};

// Writes what `fill` streams to `path` atomically, as FileSink does, through
// a PendingFile (atomic_file.h): safe in a folder others can write to.
// Returns "" or an error line; exceptions from `fill` become that line.
std::string write_file_atomically(const std::string& path,
                                  const std::function<void(std::ostream&)>& fill);

}  // namespace brickprof
