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

// A trace written without being held whole (the agent's exit write,
// agent/trace_stream.h): it writes each format itself, byte for byte what
// the exporter writes for the same trace.
class StreamedTrace {
 public:
  virtual ~StreamedTrace() = default;
  virtual void write_json(std::ostream& out) = 0;
  virtual void write_tree(std::ostream& out) = 0;
  virtual void write_dot(std::ostream& out) = 0;
  virtual void write_chrome(std::ostream& out) = 0;
  virtual void write_folded(std::ostream& out) = 0;
};

// The exporter for a format name, or nullptr if the name is unknown.
std::unique_ptr<Exporter> make_exporter(std::string_view name);
// Every format name, in SPEC order: json, tree, dot, chrome, folded.
const std::vector<std::string_view>& exporter_names();
// Splits "json,tree" into names (empty items skipped, spaces trimmed).
std::vector<std::string> parse_formats(std::string_view list);

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // Writes one format's output, whatever `fill` streams (a writer that
  // holds no Trace, like the agent's exit write, streams its own). Returns
  // "" on success, else one line that says what failed. Never throws.
  virtual std::string emit(std::string_view format, std::string_view extension,
                           const std::function<void(std::ostream&)>& fill) = 0;
  // Writes one exporter's output of `trace`.
  std::string emit(const Exporter& exporter, const Trace& trace) {
    return emit(exporter.name(), exporter.extension(),
                [&](std::ostream& out) { exporter.write(trace, out); });
  }
};

// Writes `<prefix><extension>` atomically: a temporary file in the same
// directory, then rename(), so a reader never sees half a file and a failed
// write leaves any earlier output in place.
class FileSink : public OutputSink {
 public:
  explicit FileSink(std::string prefix) : prefix_(std::move(prefix)) {}
  using OutputSink::emit;
  std::string emit(std::string_view format, std::string_view extension,
                   const std::function<void(std::ostream&)>& fill) override;
  // The file one exporter writes to.
  std::string path_for(const Exporter& exporter) const;

 private:
  std::string prefix_;
};

// Keeps each format's text in memory, keyed by format name.
class MemorySink : public OutputSink {
 public:
  using OutputSink::emit;
  std::string emit(std::string_view format, std::string_view extension,
                   const std::function<void(std::ostream&)>& fill) override;
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
std::vector<std::string> write_outputs(StreamedTrace& trace,
                                       const std::vector<std::string>& formats, OutputSink& sink);

// Writes what `fill` streams to `path` atomically, as FileSink does.
// Returns "" or an error line; exceptions from `fill` become that line.
std::string write_file_atomically(const std::string& path,
                                  const std::function<void(std::ostream&)>& fill);

}  // namespace brickprof
