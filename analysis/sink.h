// One interface for every output format, and where the outputs go.
// An Exporter turns a Trace into one format's bytes on a stream; an
// OutputSink decides where those bytes land (files next to a prefix, or
// memory for tests). write_outputs() is what the agent's dump calls.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/trace.h"

namespace brickprof {

class Exporter {
 public:
  virtual ~Exporter() = default;
  // The format's name in BRICKPROF_FORMATS ("json", "tree", ...).
  virtual std::string_view name() const = 0;
  // Appended to the output prefix (".json", ".tree.txt", ...).
  virtual std::string_view extension() const = 0;
  // Streams the whole output. May throw (bad_alloc, stream errors); sinks
  // catch and report.
  virtual void write(const Trace& trace, std::ostream& out) const = 0;
};

// The exporter for a format name, or nullptr if the name is unknown.
std::unique_ptr<Exporter> make_exporter(std::string_view name);
// Every format name, in SPEC order: json, tree, dot, chrome, folded, then
// json.gz and perfetto.
const std::vector<std::string_view>& exporter_names();
// Splits "json,tree" into names (empty items skipped, spaces trimmed).
std::vector<std::string> parse_formats(std::string_view list);

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // Writes one exporter's output. Returns "" on success, else one line that
  // says what failed. Never throws.
  virtual std::string emit(const Exporter& exporter, const Trace& trace) = 0;
};

// Writes `<prefix><extension>` atomically: a temporary file in the same
// directory, then rename(), so a reader never sees half a file and a failed
// write leaves any earlier output in place (see atomic_file.h).
class FileSink : public OutputSink {
 public:
  explicit FileSink(std::string prefix) : prefix_(std::move(prefix)) {}
  std::string emit(const Exporter& exporter, const Trace& trace) override;
  // The file one exporter writes to.
  std::string path_for(const Exporter& exporter) const;

 private:
  std::string prefix_;
};

// Keeps each format's text in memory, keyed by format name.
class MemorySink : public OutputSink {
 public:
  std::string emit(const Exporter& exporter, const Trace& trace) override;
  const std::map<std::string, std::string, std::less<>>& outputs() const { return outputs_; }
  // The text written for a format, or "" if none.
  const std::string& text(std::string_view format) const;

 private:
  std::map<std::string, std::string, std::less<>> outputs_;
};

// Writes each named format through the sink. Returns one error line per
// failure (unknown format, failed write); empty when all succeeded. Never
// throws, so the agent can call it at exit inside the host process.
std::vector<std::string> write_outputs(const Trace& trace, const std::vector<std::string>& formats,
                                       OutputSink& sink);

// Writes what `fill` streams to `path` atomically, as FileSink does, through
// a PendingFile (atomic_file.h): safe in a folder others can write to.
// Returns "" or an error line; exceptions from `fill` become that line.
std::string write_file_atomically(const std::string& path,
                                  const std::function<void(std::ostream&)>& fill);

}  // namespace brickprof
